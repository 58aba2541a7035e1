/**
 * No file in src/ or webview/ is longer than MAX_FILE_LINES (docs/ARCHITECTURE.md, "Tests and tools"): a file
 * that long holds several jobs that are easier to find, read and change as modules of their own. The
 * exceptions are named in LONG_FILES, each with the reason it stays in one piece.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const MAX_FILE_LINES = 600;
/** Path → why it stays one file (a hot kernel that says why, in its comment). Each must still exist and still be longer than the limit. */
const LONG_FILES: Readonly<Record<string, string>> = {};
/** Lines of a text as an editor numbers them (a final newline does not start a line). */
function lineCount(text: string): number {
  if (text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

/** Every file below dir (sources, styles, data: a file of the folder counts whatever its kind). */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

describe(`file length: no file in src/ or webview/ over ${MAX_FILE_LINES} lines but the declared exceptions`, () => {
  const lines = new Map<string, number>();
  for (const file of [...files(join(ROOT, 'src')), ...files(join(ROOT, 'webview'))])
    lines.set(relative(ROOT, file).split(sep).join('/'), lineCount(readFileSync(file, 'utf8')));
  const long = [...lines].filter(([, n]) => n > MAX_FILE_LINES);

  it('reads the files of both folders, whatever their kind', () => {
    const kinds = new Set([...lines.keys()].map((f) => `${f.split('/')[0]} ${f.slice(f.lastIndexOf('.'))}`));
    for (const k of ['src .ts', 'webview .ts', 'webview .css']) assert.ok(kinds.has(k), `no ${k} file read`);
  });

  it(`every file has at most ${MAX_FILE_LINES} lines, or is declared`, () => {
    const over = long.filter(([f]) => !(f in LONG_FILES)).map(([f, n]) => `${f} has ${n} lines`);
    assert.deepEqual(over, [], 'split these by job into modules of their own (or, for a hot kernel, name it in LONG_FILES with its reason)');
  });

  it('each declared exception still exists and is still over the limit (the lists do not go stale)', () => {
    const stale = Object.keys(LONG_FILES).filter((f) => !((lines.get(f) ?? 0) > MAX_FILE_LINES));
    assert.deepEqual(stale, [], 'remove these from LONG_FILES');
  });

  it('counts lines as an editor numbers them', () => {
    assert.deepEqual(['', 'a', 'a\n', 'a\nb', 'a\nb\n', '\n\n'].map(lineCount), [0, 1, 1, 2, 2, 2]);
  });
});
