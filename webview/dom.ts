/** DOM helpers of the inspector webview (the formatting itself is in ./format.ts, pure). */

/** Creates an element with a class and optional text (no innerHTML anywhere: CSP and escaping). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Looks up an element that the page markup (src/extension/webviewHtml.ts) must contain. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`inspector markup has no #${id}`);
  return e as T;
}
