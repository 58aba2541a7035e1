/**
 * No function in src/ or webview/ is longer than MAX_FUNCTION_LINES (docs/ARCHITECTURE.md, "Tests and tools"):
 * a function that long does several jobs that are easier to read, test and change one by one. The exceptions are
 * the hot kernels named in HOT_KERNELS, each with the reason it is written out in one piece.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { functionSpans } from './function-lengths.js';

const ROOT = resolve(__dirname, '..', '..');
const MAX_FUNCTION_LINES = 150;
/** `file:function` → why it stays in one piece. Each must still exist and still be longer than the limit. */
const HOT_KERNELS: Readonly<Record<string, string>> = {
  'src/engine/solvers/pgsSweep.ts:sweepMatrixFree':
    'the matrix-free PGS sweep: row products and Δv updates written out in the loop, since a call that takes or returns a double boxes it in V8 (its comment)',
};

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

describe('function length: no function in src/ or webview/ over 150 lines but the declared hot kernels', () => {
  const long = new Map<string, number>();
  for (const file of [...tsFiles(join(ROOT, 'src')), ...tsFiles(join(ROOT, 'webview'))]) {
    const rel = relative(ROOT, file).split(sep).join('/');
    for (const f of functionSpans(readFileSync(file, 'utf8'))) if (f.lines > MAX_FUNCTION_LINES) long.set(`${rel}:${f.name}`, f.lines);
  }

  it(`every function has at most ${MAX_FUNCTION_LINES} lines, or is a hot kernel that says why`, () => {
    const over = [...long].filter(([key]) => !(key in HOT_KERNELS)).map(([key, n]) => `${key} has ${n} lines`);
    assert.deepEqual(over, [], 'split these into functions a phase each (or, for a hot kernel, name it in HOT_KERNELS with its reason)');
  });

  it('each declared hot kernel still exists and is still over the limit (the list does not go stale)', () => {
    const stale = Object.keys(HOT_KERNELS).filter((key) => !long.has(key));
    assert.deepEqual(stale, [], 'remove these from HOT_KERNELS');
  });

  it('the scanner counts functions, methods and arrows, and nothing else', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
    const src = [
      `export function plain(a: number): number {\n${body(3)}\n  return a;\n}`,
      `class C {\n  method<T>(t: T): Promise<T> {\n${body(2)}\n    if (t) {\n      return t as never;\n    }\n  }\n}`,
      `const arrow = (a: string) => {\n  const s = \`{\${a}}\`; // } a brace in a comment\n  return /[{]/.test(s) ? '}' : "{";\n};`,
      `for (const k of [1]) {\n${body(20)}\n}`,
      `const o = {\n  key: 1,\n};`,
    ].join('\n');
    const spans = functionSpans(src).map((f) => [f.name, f.lines]);
    assert.deepEqual(spans, [
      ['plain', 6],
      ['method', 7],
      ['arrow', 4],
    ]);
  });
});
