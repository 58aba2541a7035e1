/**
 * Import direction of the layers in docs/ARCHITECTURE.md: every import in src/ and webview/ (static,
 * type-only, dynamic and `require`) points to its own layer or one it may use; packages only where allowed; the
 * engine is entered through its public API (src/engine/index.ts) only; the extension's model and worker
 * never import `vscode` (they run in the worker thread and in plain Node tests).
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

/** The engine's front door: the one engine module other layers may import. */
const ENGINE_INDEX = join(ROOT, 'src', 'engine', 'index.ts');
/**
 * Engine modules another layer may import directly, each with its reason. Empty: every name the outer
 * layers use is exported by src/engine/index.ts.
 */
const DEEP_ENGINE_IMPORTS: Readonly<Record<string, string>> = {};
/** Folders whose code runs outside the extension host (worker thread, plain Node): no `vscode` there. */
const NO_VSCODE = [join(ROOT, 'src', 'extension', 'model'), join(ROOT, 'src', 'extension', 'worker')];

/** A violation of the engine's front door, or null: `target` is the resolved import of a file of layer `from`. */
function deepEngineImport(from: Layer, target: string): string | null {
  if (from === 'engine') return null;
  const ts = target.replace(/\.js$/, '.ts');
  if (ts === ENGINE_INDEX) return null;
  const rel = relative(ROOT, ts).split(sep).join('/');
  if (!rel.startsWith('src/engine/') || rel in DEEP_ENGINE_IMPORTS) return null;
  return `a deep import into the engine (${rel}); import it from src/engine/index.ts`;
}

/** Violations of the layer rules in one file's import specifiers. */
function violationsOf(file: string, specs: readonly string[]): string[] {
  const from = layerOf(file);
  if (!from) return [];
  const out: string[] = [];
  const noVscode = NO_VSCODE.some((dir) => file.startsWith(dir + sep));
  for (const spec of specs) {
    const where = `${relative(ROOT, file)} imports '${spec}'`;
    if (spec.startsWith('.')) {
      const target = resolve(dirname(file), spec);
      const to = layerOf(target);
      if (!to || !MAY_IMPORT[from].includes(to)) out.push(`${where}: ${from} may not import ${to ?? 'files outside the layers'}`);
      else {
        const deep = deepEngineImport(from, target);
        if (deep) out.push(`${where}: ${deep}`);
      }
    } else if (!PACKAGES[from].some((p) => spec === p || spec.startsWith(p.endsWith(':') ? p : `${p}/`))) {
      out.push(`${where}: package not allowed in ${from}`);
    } else if (noVscode && (spec === 'vscode' || spec.startsWith('vscode/'))) {
      out.push(`${where}: the extension's model and worker run outside the extension host`);
    }
  }
  return out;
}

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

/**
 * Module specifiers of `import … from`, `export … from`, `import '…'`, `import('…')` and `require('…')` (also
 * `import x = require('…')`); a `require` after a quote or backtick on its line is code in a string (a worker's
 * eval source), not this file's import.
 */
function specifiers(text: string): string[] {
  const out: string[] = [];
  const re =
    /^\s*(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]|^[^`'"\n]*?\brequire\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of text.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
  return out;
}

/** Specifiers of the imports that load at run time: all but `import type …` and `export type …` (erased by the compiler). */
function runtimeSpecifiers(text: string): string[] {
  return specifiers(text.replace(/^\s*(?:import|export)\s+type\s[^'"]*?\bfrom\s*['"][^'"]+['"]/gm, ''));
}

/**
 * A model or worker file that loads `vscode` through other extension files (`model/x.ts` → `live/y.ts` →
 * `vscode`): the chain of files, or null. `runtimeImports(file)` gives a file's run-time specifiers.
 */
function vscodeChain(file: string, runtimeImports: (file: string) => readonly string[]): string[] | null {
  const seen = new Set<string>();
  const walk = (f: string): string[] | null => {
    if (seen.has(f)) return null;
    seen.add(f);
    for (const spec of runtimeImports(f)) {
      if (spec === 'vscode' || spec.startsWith('vscode/')) return [f, spec];
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(f), spec).replace(/\.js$/, '.ts');
      if (!target.startsWith(join(ROOT, 'src', 'extension') + sep)) continue;
      const chain = walk(target);
      if (chain) return [f, ...chain];
    }
    return null;
  };
  return NO_VSCODE.some((dir) => file.startsWith(dir + sep)) ? walk(file) : null;
}

/** Violations of the layer rules in a file's text, as the check of the tree reads them. */
function violationsInText(file: string, text: string): string[] {
  return violationsOf(file, specifiers(text));
}

describe('layer import directions (docs/ARCHITECTURE.md)', () => {
  const files = [...tsFiles(join(ROOT, 'src')), ...tsFiles(join(ROOT, 'webview'))];

  it('finds the sources of every layer', () => {
    const seen = new Set(files.map(layerOf));
    for (const l of Object.keys(MAY_IMPORT)) assert.ok(seen.has(l as Layer), `no file of layer ${l}`);
  });

  it('every import points down the layers; packages only where allowed; the engine through its index', () => {
    const violations = files.flatMap((file) => violationsInText(file, readFileSync(file, 'utf8')));
    assert.deepEqual(violations, []);
  });

  it('fails on a deep import into the engine from another layer, not on the index or inside the engine', () => {
    const session = join(ROOT, 'src', 'session', 'x.ts');
    assert.deepEqual(violationsOf(session, ['../engine/index.js']), []);
    const deep = violationsOf(session, ['../engine/solvers/pgsRows.js', '../engine/world/types.js']);
    assert.equal(deep.length, 2);
    assert.match(deep[0], /deep import into the engine \(src\/engine\/solvers\/pgsRows\.ts\)/);
    assert.deepEqual(violationsOf(join(ROOT, 'src', 'engine', 'world', 'x.ts'), ['../solvers/pgsRows.js']), []);
    assert.equal(violationsOf(join(ROOT, 'src', 'extension', 'model', 'x.ts'), ['../../engine/kkt.js']).length, 1);
  });

  it('the model and the worker do not load `vscode` through other extension files either (type-only imports aside)', () => {
    const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
    const runtime = (f: string): string[] => runtimeSpecifiers(text.get(f) ?? '');
    const rel = (f: string): string => (f.startsWith(ROOT) ? relative(ROOT, f).split(sep).join('/') : f);
    const chains = files.flatMap((f) => vscodeChain(f, runtime) ?? []);
    assert.deepEqual(chains.map(rel), []);
    // a synthetic chain: model/x.ts → live/y.ts → vscode fails; the same import as a type does not
    const x = join(ROOT, 'src', 'extension', 'model', 'x.ts'),
      y = join(ROOT, 'src', 'extension', 'live', 'y.ts');
    const tree = (xText: string) => (f: string) => runtimeSpecifiers(f === x ? xText : f === y ? "import * as vscode from 'vscode';" : '');
    assert.deepEqual(vscodeChain(x, tree("import { follow } from '../live/y.js';"))?.map(rel), [
      'src/extension/model/x.ts',
      'src/extension/live/y.ts',
      'vscode',
    ]);
    assert.equal(vscodeChain(x, tree("import type { Follow } from '../live/y.js';")), null);
  });

  it('fails on `vscode` in src/extension/model and src/extension/worker, not elsewhere in the extension', () => {
    for (const dir of ['model', 'worker']) {
      const v = violationsOf(join(ROOT, 'src', 'extension', dir, 'x.ts'), ['vscode']);
      assert.equal(v.length, 1, dir);
      assert.match(v[0], /outside the extension host/);
    }
    assert.deepEqual(violationsOf(join(ROOT, 'src', 'extension', 'inspectorPanel.ts'), ['vscode']), []);
  });

  it('a new file with a deep engine import, or `vscode` in the model or worker, in any import form fails the check', () => {
    const at = (...p: string[]) => join(ROOT, 'src', ...p);
    const deep = [
      "import type {\n  PgsRow,\n  PgsOptions,\n} from '../engine/solvers/pgsRows.js';",
      "export * from '../engine/solvers/ipmSparse.js';",
      "const m = await import('../engine/world/detect.js');",
      "import { World } from '../engine/index.js';", // the front door: allowed
    ].join('\n');
    assert.deepEqual(
      violationsInText(at('session', 'newModule.ts'), deep).map((v) => v.match(/\(src\/engine\/[^)]+\)/)?.[0]),
      ['(src/engine/solvers/pgsRows.ts)', '(src/engine/solvers/ipmSparse.ts)', '(src/engine/world/detect.ts)'],
    );
    for (const text of [
      "import * as vscode from 'vscode';",
      "import type { Uri } from 'vscode';",
      "type Api = typeof import('vscode');",
      "const vscode = require('vscode');",
      "import vscode = require('vscode');",
    ]) {
      for (const dir of ['model', 'worker']) {
        const v = violationsInText(at('extension', dir, 'newModule.ts'), `const x = 1;\n${text}\n`);
        assert.equal(v.length, 1, `${dir}: ${text}`);
        assert.match(v[0], /outside the extension host/);
      }
      assert.deepEqual(violationsInText(at('extension', 'newCommand.ts'), text), [], text);
    }
    // code in a string run by a worker is not this file's import
    assert.deepEqual(specifiers("new Worker(`require('tsx/cjs'); require(file);`, { eval: true });"), []);
  });

  it('reads static, type-only and dynamic imports', () => {
    assert.deepEqual(
      specifiers("import * as vscode from 'vscode';\nimport type { Session } from '../session/session.js';\nconst m = await import('node:fs');"),
      ['vscode', '../session/session.js', 'node:fs'],
    );
  });
});
