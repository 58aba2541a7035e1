/**
 * The engines' npm packages, loaded on demand (docs/compare.md "Other engines"): each engine is an optional
 * dependency. A build ships a copy of each package's one runtime file next to its bundle (dist/engines/, built by
 * scripts/build.mjs; the VSIX holds them), which is used first; otherwise the package is taken from
 * node_modules. Neither there: one clear line saying how to install it. Nothing is loaded until an engine runs.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PeerEngineName } from './types.js';

/** Where each engine's code is: its package, the file loaded from it, the copy a build ships, and how it loads. */
export interface EnginePackage {
  readonly engine: PeerEngineName;
  /** Display name. */
  readonly title: string;
  readonly package: string;
  /** The runtime file inside the package. */
  readonly file: string;
  /** The copy's name in dist/engines/. */
  readonly shipped: string;
  /** 'cjs': require() it; 'esm-factory': import it and call its default export (an Emscripten module factory). */
  readonly kind: 'cjs' | 'esm-factory' | 'cjs-init';
}

export const ENGINE_PACKAGES: Readonly<Record<PeerEngineName, EnginePackage>> = {
  cannon: { engine: 'cannon', title: 'cannon-es', package: 'cannon-es', file: 'dist/cannon-es.cjs.js', shipped: 'cannon-es.cjs', kind: 'cjs' },
  rapier: {
    engine: 'rapier',
    title: 'Rapier',
    package: '@dimforge/rapier3d-compat',
    file: 'dist/rapier.cjs',
    shipped: 'rapier3d-compat.cjs',
    kind: 'cjs-init',
  },
  jolt: {
    engine: 'jolt',
    title: 'Jolt',
    package: 'jolt-physics',
    file: 'dist/jolt-physics.wasm-compat.js',
    shipped: 'jolt-physics.wasm-compat.mjs',
    kind: 'esm-factory',
  },
  mujoco: { engine: 'mujoco', title: 'MuJoCo', package: 'mujoco-js', file: 'dist/mujoco_wasm.js', shipped: 'mujoco_wasm.mjs', kind: 'esm-factory' },
};

/** An engine that is not installed: its message says how to get it. */
export class EngineUnavailableError extends Error {
  constructor(
    readonly engine: PeerEngineName,
    detail: string,
  ) {
    const p = ENGINE_PACKAGES[engine];
    super(
      `the ${p.title} engine is not available (${detail}): install it with \`npm install ${p.package}\` (an optional dependency of Contact Lens), or use a build that ships dist/engines/${p.shipped}`,
    );
    this.name = 'EngineUnavailableError';
  }
}

/** Folders searched for a shipped copy: next to the running bundle (dist/engines), then the repository's dist/engines. */
function shippedDirs(): string[] {
  const here = path.dirname(__filename);
  return [path.join(here, 'engines'), path.resolve(here, '..', '..', '..', 'dist', 'engines')];
}

/** The path of the engine's runtime file, or why there is none. */
export function locateEngine(engine: PeerEngineName): { readonly path: string; readonly version: string } | { readonly missing: string } {
  return locatePackage(ENGINE_PACKAGES[engine], shippedDirs(), createRequire(__filename).resolve.paths(ENGINE_PACKAGES[engine].package) ?? []);
}

/** The runtime file of a package: a shipped copy in one of `shipped`, else the package in one of the node_modules folders. */
export function locatePackage(
  p: EnginePackage,
  shipped: readonly string[],
  nodeModules: readonly string[],
): { readonly path: string; readonly version: string } | { readonly missing: string } {
  for (const dir of shipped) {
    const f = path.join(dir, p.shipped);
    if (fs.existsSync(f)) return { path: f, version: shippedVersion(dir, p) };
  }
  // packages with an `exports` map (Rapier) refuse require.resolve('NAME/package.json'): walk the paths
  for (const dir of nodeModules) {
    const root = path.join(dir, p.package);
    const f = path.join(root, p.file);
    if (!fs.existsSync(f)) continue;
    try {
      const pj = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string };
      return { path: f, version: pj.version ?? 'unknown' };
    } catch {
      return { path: f, version: 'unknown' };
    }
  }
  return { missing: `${p.package} is not in node_modules and no dist/engines/${p.shipped} ships with this build` };
}

/** Versions of shipped copies: dist/engines/versions.json, written by the build. */
function shippedVersion(dir: string, p: EnginePackage): string {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(dir, 'versions.json'), 'utf8')) as Record<string, string>;
    return v[p.package] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

const loaded = new Map<PeerEngineName, Promise<{ module: unknown; version: string }>>();

/** Loads an engine's module once (Emscripten factories are called, Rapier initialised); throws EngineUnavailableError. */
export function loadEngine(engine: PeerEngineName): Promise<{ module: unknown; version: string }> {
  let p = loaded.get(engine);
  if (!p) {
    p = load(engine);
    loaded.set(engine, p);
    p.catch(() => loaded.delete(engine));
  }
  return p;
}

async function load(engine: PeerEngineName): Promise<{ module: unknown; version: string }> {
  const where = locateEngine(engine);
  if ('missing' in where) throw new EngineUnavailableError(engine, where.missing);
  const kind = ENGINE_PACKAGES[engine].kind;
  try {
    if (kind === 'esm-factory') {
      const mod = (await import(pathToFileURL(where.path).href)) as { default: () => Promise<unknown> };
      return { module: await mod.default(), version: where.version };
    }
    const mod = createRequire(__filename)(where.path) as { default?: unknown; init?: () => Promise<void> };
    const m = (mod.default ?? mod) as { init?: () => Promise<void> };
    if (kind === 'cjs-init') await m.init?.();
    return { module: m, version: where.version };
  } catch (e) {
    throw new EngineUnavailableError(engine, `${where.path} did not load: ${(e as Error).message}`);
  }
}
