/**
 * The fuzzer's mutators (seeded): text mutations with the campaign's hostile tokens, structural JSON
 * mutations, and byte mutations of binary files (gzip, HDF5). Used by targets.ts.
 */
export type Rand = () => number;
export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
export const int = (r: Rand, n: number): number => Math.floor(r() * n);

/** Text a fuzzer inserts: the campaign's hostile tokens (non-finite numbers, control characters, prototypes keys, deep nesting). */
const TOKENS: readonly string[] = [
  'NaN',
  'Infinity',
  '-Infinity',
  'nan',
  '-inf',
  '1e309',
  '-1e309',
  '1e300',
  '-1e300',
  '5e-324',
  '-0',
  '1e10',
  '9007199254740993',
  'null',
  'true',
  'false',
  '{}',
  '[]',
  '""',
  '"constructor"',
  '"__proto__"',
  '"toString"',
  '{"toString": 1}',
  '{"valueOf": null}',
  '"\\u001b[2J\\u001b[H✓ ok"',
  '"\\n"',
  '"\\u0000"',
  '\u001b[31m',
  '\n',
  '\r',
  '\t',
  '\ufeff',
  ',',
  ':',
  '"',
  '[',
  ']',
  '{',
  '}',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
  '"' + 'x'.repeat(5000) + '"',
  '"' + 'k'.repeat(130_000) + '"', // a key or string past the call-stack size of a spread
  '1' + '2'.repeat(130_000), // a number token as long
];

/** JSON values the structural mutator puts in place of an existing value. */
const VALUES: readonly unknown[] = [
  0,
  -1,
  1e300,
  -1e300,
  5e-324,
  1e10,
  2 ** 53,
  0.5,
  -0.5,
  null,
  true,
  false,
  '',
  'x'.repeat(3000),
  '\u001b[2J\nfake',
  [],
  {},
  [1, 2],
  { toString: 1 },
  { constructor: 1, __proto__: 1 },
  [[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]],
  [NaN], // JSON.stringify writes null
];

/** Byte/text-level mutation: flip, insert a token, delete or duplicate a range. */
export function mutateText(r: Rand, text: string): string {
  const at = int(r, text.length + 1);
  switch (int(r, 5)) {
    case 0:
      return text.slice(0, at) + String.fromCharCode(int(r, 128)) + text.slice(at + 1);
    case 1:
      return text.slice(0, at) + pick(r, TOKENS) + text.slice(at);
    case 2:
      return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + int(r, 40)));
    case 3: {
      const len = int(r, 200);
      return text.slice(0, at) + text.slice(at, at + len) + text.slice(at);
    }
    default: {
      // replace a number literal with a hostile one
      const m = [...text.matchAll(/-?\d+(\.\d+)?(e[-+]?\d+)?/gi)];
      if (m.length === 0) return text;
      const x = pick(r, m);
      return text.slice(0, x.index) + pick(r, ['NaN', '1e309', '-1e309', '1e300', '-5', '1e10', '0', '-0', '0.5', '2.5']) + text.slice(x.index! + x[0].length);
    }
  }
}

/** Structural mutation: a random value in the JSON tree replaced, removed, or an unknown key added. */
export function mutateJson(r: Rand, value: unknown): unknown {
  const root = JSON.parse(JSON.stringify(value)) as unknown;
  let parent: Record<string, unknown> | unknown[] | null = null;
  let key: string | number = '';
  let node = root;
  for (let depth = 0; depth < 12 && node !== null && typeof node === 'object' && r() < 0.85; depth++) {
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    parent = node as Record<string, unknown>;
    key = pick(r, keys);
    node = (node as Record<string, unknown>)[key as string];
  }
  if (parent === null) return pick(r, VALUES);
  const op = int(r, 4);
  if (op === 0 && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[key as string];
  else if (op === 1 && !Array.isArray(parent))
    (parent as Record<string, unknown>)[pick(r, ['constructor', 'toString', '__proto__', 'x-vendor', 'unknwon', '\u001b[2J', 'k'.repeat(2000)])] = pick(
      r,
      VALUES,
    );
  else (parent as Record<string, unknown>)[key as string] = pick(r, VALUES);
  return root;
}

/** A mutant of `text`: 1–3 text mutations, or a structural one (JSON texts only). */
export function mutant(r: Rand, text: string, json: unknown | undefined): string {
  if (json !== undefined && r() < 0.5) return JSON.stringify(mutateJson(r, json), null, r() < 0.5 ? 1 : undefined);
  let t = text;
  for (let k = 1 + int(r, 3); k > 0; k--) t = mutateText(r, t);
  return t;
}

/** Byte-level mutation of a binary file: bit flips, a zeroed or random run, truncation, a duplicated or deleted range. */
export function mutateBytes(r: Rand, bytes: Uint8Array): Buffer {
  const b = Buffer.from(bytes);
  const at = int(r, b.length);
  switch (int(r, 6)) {
    case 0:
      for (let k = 1 + int(r, 4); k > 0; k--) b[int(r, b.length)] ^= 1 << int(r, 8);
      return b;
    case 1:
      b.fill(0, at, Math.min(b.length, at + 1 + int(r, 64)));
      return b;
    case 2:
      for (let k = at; k < Math.min(b.length, at + 1 + int(r, 16)); k++) b[k] = int(r, 256);
      return b;
    case 3:
      return b.subarray(0, at);
    case 4: {
      const len = 1 + int(r, 2048);
      return Buffer.concat([b.subarray(0, at), b.subarray(at, at + len), b.subarray(at)]);
    }
    default:
      return Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + int(r, 512)))]);
  }
}
