/**
 * The ONLY module that touches the UI component library (@vscode/webview-ui-toolkit). Every button,
 * dropdown, text field, checkbox and divider of the inspector is created through these helpers, so the
 * toolkit (deprecated upstream) can be swapped for @vscode-elements/elements by editing this file alone.
 * Large tables are plain virtualised HTML (contactTable.ts), not the toolkit's data grid.
 */
import {
  provideVSCodeDesignSystem,
  vsCodeButton,
  vsCodeCheckbox,
  vsCodeDivider,
  vsCodeDropdown,
  vsCodeOption,
  vsCodeTextField,
} from '@vscode/webview-ui-toolkit';

let registered = false;

/** Registers the custom elements used here (once). */
export function registerToolkit(): void {
  if (registered) return;
  provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeCheckbox(), vsCodeDivider(), vsCodeDropdown(), vsCodeOption(), vsCodeTextField());
  registered = true;
}

export interface ButtonOptions {
  readonly id?: string;
  readonly label: string;
  readonly title?: string;
  /** 'primary' (default look), 'secondary' or 'icon'. */
  readonly appearance?: 'primary' | 'secondary' | 'icon';
  readonly onClick: () => void;
}

export function button(o: ButtonOptions): HTMLElement {
  const b = document.createElement('vscode-button');
  if (o.id) b.id = o.id;
  b.textContent = o.label;
  if (o.title) {
    b.title = o.title;
    b.setAttribute('aria-label', o.title);
  }
  b.setAttribute('appearance', o.appearance ?? 'secondary');
  b.addEventListener('click', () => {
    if (!b.hasAttribute('disabled')) o.onClick();
  });
  return b;
}

export function setDisabled(e: HTMLElement, disabled: boolean): void {
  if (disabled) e.setAttribute('disabled', '');
  else e.removeAttribute('disabled');
}

export function setLabel(e: HTMLElement, label: string): void {
  e.textContent = label;
}

/** A dropdown of fixed choices; `.value` is the selected choice. */
export function dropdown(id: string, choices: readonly string[], value: string): HTMLElement & { value: string } {
  const d = document.createElement('vscode-dropdown') as HTMLElement & { value: string };
  d.id = id;
  for (const c of choices) {
    const o = document.createElement('vscode-option');
    o.setAttribute('value', c);
    o.textContent = c;
    if (c === value) o.setAttribute('selected', '');
    d.appendChild(o);
  }
  return d;
}

/** A labelled text field; `.value` is its text. */
export function textField(id: string, label: string, placeholder: string): HTMLElement & { value: string } {
  const t = document.createElement('vscode-text-field') as HTMLElement & { value: string };
  t.id = id;
  t.setAttribute('placeholder', placeholder);
  t.setAttribute('size', '8');
  t.textContent = label;
  return t;
}

/** A labelled checkbox; `.checked` is its state. */
export function checkbox(id: string, label: string, checked: boolean): HTMLElement & { checked: boolean } {
  const c = document.createElement('vscode-checkbox') as HTMLElement & { checked: boolean };
  c.id = id;
  c.textContent = label;
  if (checked) c.setAttribute('checked', '');
  return c;
}

export function divider(): HTMLElement {
  return document.createElement('vscode-divider');
}

/** Reads a toolkit control's value (dropdown / text field). */
export function controlValue(e: HTMLElement): string {
  return String((e as HTMLElement & { value?: unknown }).value ?? '');
}

export function checkedOf(e: HTMLElement): boolean {
  return (e as HTMLElement & { checked?: unknown }).checked === true;
}
