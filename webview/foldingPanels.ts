/**
 * Folding panels: a click (or Enter) on a panel's title folds it to its title line and back, so a half-width
 * inspector shows what the user works with; the folded panels are kept in the webview state. The scene view
 * folds with its own <details>.
 */
export class FoldingPanels {
  private readonly panels: HTMLElement[];

  constructor(
    root: ParentNode,
    folded: readonly string[],
    private readonly changed: () => void,
  ) {
    this.panels = Array.from(root.querySelectorAll<HTMLElement>('section.panel[id]')).filter((p) => p.querySelector(':scope > h2'));
    for (const p of this.panels) {
      const h = p.querySelector<HTMLElement>(':scope > h2')!;
      h.classList.add('foldable');
      h.tabIndex = 0;
      h.setAttribute('role', 'button');
      h.setAttribute('aria-expanded', 'true');
      const toggle = (e: Event): void => {
        // controls inside a title (the energy chart's "absolute") keep their own clicks
        if ((e.target as HTMLElement).closest('vscode-checkbox, vscode-button, button, input, select')) return;
        this.set(p, !p.classList.contains('folded'));
        this.changed();
      };
      h.addEventListener('click', toggle);
      h.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && e.target === h) {
          e.preventDefault();
          toggle(e);
        }
      });
      if (folded.includes(p.id)) this.set(p, true);
    }
  }

  /** Ids of the folded panels. */
  get folded(): string[] {
    return this.panels.filter((p) => p.classList.contains('folded')).map((p) => p.id);
  }

  private set(p: HTMLElement, fold: boolean): void {
    p.classList.toggle('folded', fold);
    p.querySelector(':scope > h2')?.setAttribute('aria-expanded', String(!fold));
  }
}
