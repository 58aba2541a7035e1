/** Fixed-width text cells for the contact table (pure; tested in Node): rows are lines of monospace text. */

/** `text` fitted to `width` characters: padded on the aligned side, cut with "…" when too long, then a one-space gap. */
export function fitCell(text: string, width: number, align: 'left' | 'right'): string {
  const w = width - 1;
  const t = text.length > w ? `${text.slice(0, w - 1)}…` : text;
  return (align === 'right' ? t.padStart(w) : t.padEnd(w)) + ' ';
}
