/**
 * What h5wasm may open while it reads an HDF5 file: only the file the user named. HDF5 can make the library
 * open other files by itself — an external link (H5Lcreate_external), external raw storage (H5Pset_external:
 * a dataset's bytes in another file) and a virtual dataset (H5Pset_virtual: a dataset mapped onto datasets
 * of other files) — and those can name any local path, a named pipe included (HDF5 User's Guide, "Links",
 * "External Storage", "Virtual Dataset"). h5wasm's Node build reads the real file system (Emscripten
 * NODERAWFS), so every file it opens goes through its FS.open: that is where this module stands. An open of
 * any other path is refused (recorded, so the reader can name the dataset that asked for it), unless the
 * caller opted in for this file; then other regular files may be read, and a named pipe, device or
 * directory never is (opening a FIFO would block the thread for good).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Emscripten's errno for "permission denied" (its musl numbering: EACCES = 2). */
const EMSCRIPTEN_EACCES = 2;
/** O_CREAT | O_EXCL (musl): a new file of h5wasm's own (its error handler's tmpfile), never someone's file. */
const CREATE_NEW = 64 | 128;

interface EmscriptenFs {
  open: (path: string, flags: number, mode?: number) => unknown;
  ErrnoError: new (errno: number) => Error;
}

/** What the reader of one file allows (null between reads: h5wasm opens nothing then). */
interface Policy {
  /** Real path of the file the user named. */
  readonly input: string;
  readonly allowExternal: boolean;
  /** Paths h5wasm tried to open and was refused, in order. */
  readonly refused: string[];
}

let policy: Policy | null = null;

/** musl's O_RDONLY. */
const O_RDONLY = 0;
let empty: string | null = null;
/** An empty regular file of our own (created once per process, removed at exit): what a refused open gets. */
function emptyFile(): string {
  if (empty === null || !fs.existsSync(empty)) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-hdf5-'));
    empty = path.join(dir, 'refused-external-file');
    fs.writeFileSync(empty, '');
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return empty;
}
const guarded = new WeakSet<object>();

function realOrSame(path: string): string {
  try {
    return fs.realpathSync(path);
  } catch {
    return path;
  }
}

/** Wraps FS.open of an h5wasm module once: every open is checked against the current policy. */
export function guardFileSystem(FS: EmscriptenFs): void {
  if (guarded.has(FS)) return;
  guarded.add(FS);
  const open = FS.open.bind(FS);
  FS.open = (path: string, flags: number, mode?: number): unknown => {
    const p = policy;
    // h5wasm's own start-up, or a file it creates for itself (the HDF5 error stack goes through a tmpfile)
    if (p === null || (flags & CREATE_NEW) === CREATE_NEW) return open(path, flags, mode);
    const real = realOrSame(path);
    if (real !== p.input) {
      let regular = false;
      try {
        regular = fs.statSync(path).isFile();
      } catch {
        // a path that does not exist: refused like any other (HDF5 then reports it cannot open it)
      }
      if (!p.allowExternal || !regular) {
        // Refused: HDF5 gets an empty file instead (not an error: a read that fails half-way leaves its
        // dataset open inside h5wasm, and the file with it). External raw storage then reads as zeros,
        // an external link or a virtual dataset's source is not HDF5; the reader reports the refusal.
        p.refused.push(path);
        return open(emptyFile(), O_RDONLY, mode);
      }
    } else if (!fs.statSync(path).isFile()) {
      p.refused.push(path); // the named file replaced by a pipe or device since it was checked
      throw new FS.ErrnoError(EMSCRIPTEN_EACCES);
    }
    return open(path, flags, mode);
  };
}

/**
 * Runs `read` (synchronous: no other file's read can interleave) with h5wasm allowed to open only `input`
 * (and, with allowExternal, other regular files). `refused()` tells the paths it was stopped from opening.
 */
export function withFileAccess<T>(input: string, allowExternal: boolean, read: (refused: () => readonly string[]) => T): T {
  const mine: Policy = { input: realOrSame(input), allowExternal, refused: [] };
  policy = mine;
  try {
    return read(() => mine.refused);
  } finally {
    policy = null;
  }
}
