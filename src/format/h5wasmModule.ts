/**
 * The h5wasm module (HDF5 compiled to WebAssembly): loaded once, on first use (an ES module with an
 * asynchronous start-up), with HDF5 errors thrown as exceptions and file access guarded (hdf5Access.ts).
 *
 * A damaged file can make the C library abort (e.g. a corrupt size field asks malloc for more than the 2 GiB
 * of WebAssembly memory, and Emscripten aborts on a failed allocation); an aborted instance fails every later
 * call. discardH5() drops it: the next read instantiates a fresh copy (the module file imported again under
 * another URL, so Node evaluates it anew), so one bad file never disables HDF5 for the rest of a session.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { guardFileSystem } from './hdf5Access.js';

export type H5 = typeof import('h5wasm/node');

let h5Promise: Promise<H5> | null = null;
let instances = 0;

/**
 * Where the module file is, for a fresh import: next to the bundle (dist/h5wasm.mjs, scripts/build.mjs), or in
 * node_modules when run from source.
 */
function moduleFile(): string {
  const bundled = join(__dirname, 'h5wasm.mjs');
  return existsSync(bundled) ? bundled : resolve(__dirname, '..', '..', 'node_modules', 'h5wasm', 'dist', 'node', 'hdf5_hl.js');
}

async function start(m: H5): Promise<H5> {
  const mod = await m.ready;
  // HDF5 errors become exceptions (turned into one line by the reader) instead of an error stack printed on stderr
  mod.activate_throwing_error_handler();
  guardFileSystem(mod.FS as unknown as Parameters<typeof guardFileSystem>[0]); // only the named file is opened
  return m;
}

/** The h5wasm module, ready. */
export function loadH5(): Promise<H5> {
  if (h5Promise === null) {
    instances++;
    const fresh = instances === 1 ? import('h5wasm/node') : (import(`${pathToFileURL(moduleFile()).href}?instance=${instances}`) as Promise<H5>);
    h5Promise = fresh.then(start);
  }
  return h5Promise;
}

/** True when an exception from h5wasm means the instance itself is broken (an abort, a trap in its code). */
export function isFatalH5Error(e: unknown): boolean {
  // WebAssembly.RuntimeError (a trap: "table index is out of bounds", "unreachable") or Emscripten's abort
  return (e as Error)?.name === 'RuntimeError' || /\bAborted\(/.test(String((e as Error)?.message ?? ''));
}

/** Drops the current instance (it aborted); the next loadH5() starts a fresh one. */
export function discardH5(): void {
  h5Promise = null;
}
