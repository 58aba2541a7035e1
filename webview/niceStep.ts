/** The smallest 1, 2 or 5 × 10^k at or above x (x > 0): the spacing of readable axis ticks. */
export function niceStep(x: number): number {
  const p = 10 ** Math.floor(Math.log10(x));
  const m = x / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}
