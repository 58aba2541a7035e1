/** Number and text formatting shared by the inspector's views (pure, no DOM). */

/** A number as the tables show it: toPrecision(6); null/undefined as an en dash. */
export function num(x: number | null | undefined, digits = 6): string {
  if (x === null || x === undefined) return '–';
  if (!Number.isFinite(x)) return String(x);
  return x.toPrecision(digits);
}

/** The full value for a title attribute. */
export function full(x: number | null | undefined): string {
  return x === null || x === undefined ? 'no value' : String(x);
}

/** A 3-vector, compact: "(x, y, z)" with 4 significant digits. */
export function vec3(v: readonly number[]): string {
  return `(${v.map((x) => num(x, 4)).join(', ')})`;
}

/** The timeline readout: "frame 12 / 180 · t = 0.2000 s" (frame number, frame count, time in s). */
export function frameReadout(frame: number, frameCount: number, time: number): string {
  return `frame ${frame} / ${frameCount} · t = ${time.toFixed(4)} s`;
}

/** Energies of one frame in J: "kinetic 1.00000 J · potential … J · total … J". */
export function energyReadout(kinetic: number, potential: number, total: number): string {
  return `kinetic ${num(kinetic)} J · potential ${num(potential)} J · total ${num(total)} J`;
}

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
