/**
 * Import direction of the layers in DESIGN.md and docs/ARCHITECTURE.md: every import in src/ and webview/
 * (static, type-only and dynamic) points to its own layer or one it may use; packages only where allowed.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
type Layer = 'engine' | 'format' | 'session' | 'cli' | 'extension' | 'protocol' | 'webview';

/** Layer → the layers it may import (its own included). */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  engine: ['engine'],
  format: ['engine', 'format'],
  session: ['engine', 'format', 'session'],
  cli: ['engine', 'format', 'session', 'cli'],
  extension: ['engine', 'format', 'session', 'protocol', 'extension'],
  protocol: ['protocol'],
  webview: ['protocol', 'webview'],
};
/** Layer → package prefixes it may import (`node:` = Node built-ins). */
const PACKAGES: Record<Layer, readonly string[]> = {
  engine: [],
  format: ['node:', 'h5wasm'], // h5wasm: the HDF5 reader of FCLIB problems (src/format/fclib.ts)
  // the engines' packages as types only: src/session/engines/enginePackages.ts loads them at run time, on demand
  session: ['node:', 'cannon-es', '@dimforge/rapier3d-compat'],
  // the optional embedded DuckDB (Parquet, `query`: src/cli/duckdb.ts); MCAP export (src/cli/mcapExport.ts)
  cli: ['node:', '@duckdb/node-api', '@mcap/core', '@foxglove/schemas'],
  extension: ['node:', 'vscode'],
  protocol: [],
  webview: ['chart.js', '@vscode/webview-ui-toolkit', 'three'],
};

function layerOf(file: string): Layer | null {
  const rel = relative(ROOT, file).split(sep);
  if (rel[0] === 'webview') return 'webview';
  if (rel[0] !== 'src') return null;
  if (rel[1] === 'protocol' || rel[1] === 'protocol.ts') return 'protocol';
  return (['engine', 'format', 'session', 'cli', 'extension'] as const).find((l) => l === rel[1]) ?? null;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Module specifiers of `import … from`, `export … from`, `import '…'` and `import('…')`. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

describe('layer import directions (DESIGN.md)', () => {
  const files = [...tsFiles(join(ROOT, 'src')), ...tsFiles(join(ROOT, 'webview'))];

  it('finds the sources of every layer', () => {
    const seen = new Set(files.map(layerOf));
    for (const l of Object.keys(MAY_IMPORT)) assert.ok(seen.has(l as Layer), `no file of layer ${l}`);
  });

  it('every import points down the layers; packages only where allowed', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      if (!from) continue;
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const where = `${relative(ROOT, file)} imports '${spec}'`;
        if (spec.startsWith('.')) {
          const to = layerOf(resolve(dirname(file), spec));
          if (!to || !MAY_IMPORT[from].includes(to)) violations.push(`${where}: ${from} may not import ${to ?? 'files outside the layers'}`);
        } else if (!PACKAGES[from].some((p) => spec === p || spec.startsWith(p.endsWith(':') ? p : `${p}/`))) {
          violations.push(`${where}: package not allowed in ${from}`);
        }
      }
    }
    assert.deepEqual(violations, []);
  });

  it('reads static, type-only and dynamic imports', () => {
    assert.deepEqual(
      specifiers("import * as vscode from 'vscode';\nimport type { Session } from '../session/session.js';\nconst m = await import('node:fs');"),
      ['vscode', '../session/session.js', 'node:fs'],
    );
  });
});
