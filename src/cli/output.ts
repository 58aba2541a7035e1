/**
 * The CLI's way in and out of files and pipes, in one place:
 * - stdout/stderr that survive a closed pipe (`contact-lens report rec.jsonl | head -1`: EPIPE ends the
 *   output quietly, it does not crash);
 * - input files read only when they are regular files of bounded size (a FIFO or /dev/zero never hangs);
 * - file-system errors (ENOENT, EACCES, EISDIR, ENOSPC, …) turned into one line naming the path, exit code 2;
 * - outputs written under a temporary name in the same folder and renamed when complete (OutputFile), never
 *   onto one of the command's inputs (compared by device and inode).
 * Every path in a message goes through safePath (control characters escaped).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { isSameFile } from '../format/inputFile.js';
import { safePath } from '../format/messages.js';

export interface Output {
  out(line: string): void;
  err(line: string): void;
  /** Terminal width when stdout is a terminal (text is wrapped to it); absent for pipes and files. */
  readonly columns?: number;
  /** Rewrites one status line in place (a progress bar) when stderr is a terminal; absent otherwise. */
  readonly progress?: (line: string) => void;
}

/** Largest scene or problem file read into memory (bytes); recordings are streamed and have no limit. */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

/** A file could not be read or written: one line "path: what went wrong", exit code 2. */
export class FileError extends Error {
  readonly exitCode = 2;
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${safePath(path)}: ${detail}`);
    this.name = 'FileError';
  }
}

const FS_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EFBIG: 'file too large for the file system',
  EEXIST: 'already exists',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many symbolic links',
};

/** The errno code of a Node file-system error, or undefined for any other exception. */
export function errnoCode(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/** "cannot write the file (no space left on the device)"; an unlisted error shows its code. */
export function describeFsError(action: 'read' | 'write', e: unknown): string {
  const code = errnoCode(e) ?? 'unknown error';
  const reason = code === 'ENOENT' && action === 'write' ? 'its folder does not exist' : FS_REASONS[code];
  return `cannot ${action} the file (${reason ?? code})`;
}

/** Runs fn; a file-system error becomes FileError(path) (exit 2), anything else passes through. */
export function withFileErrors<T>(path: string, action: 'read' | 'write', fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof FileError || !errnoCode(e)) throw e;
    throw new FileError(path, describeFsError(action, e));
  }
}

/** Reads a regular file of at most MAX_INPUT_BYTES as UTF-8 text; anything else is a FileError. */
export function readInputText(file: string, maxBytes = MAX_INPUT_BYTES): string {
  return readInputBytes(file, maxBytes).toString('utf8');
}

/** Reads a regular file of at most MAX_INPUT_BYTES as bytes (e.g. an HDF5 problem); anything else is a FileError. */
export function readInputBytes(file: string, maxBytes = MAX_INPUT_BYTES): Buffer {
  return withFileErrors(file, 'read', () => {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new FileError(file, `is not a regular file (${kindOf(st)}); give the path of a ${'.json'} file`);
      if (st.size > maxBytes)
        throw new FileError(file, `is ${(st.size / 2 ** 20).toFixed(0)} MiB; the limit for this kind of file is ${(maxBytes / 2 ** 20).toFixed(0)} MiB`);
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  });
}

/** Refuses an existing output path that is not a regular file (a FIFO would block, a device would swallow). */
export function checkOutputTarget(file: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return; // a new file: fine (a missing folder is reported on open)
    throw new FileError(file, describeFsError('write', e));
  }
  if (!st.isFile()) throw new FileError(file, `cannot write the file (${kindOf(st)})`);
}

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'it is a directory';
  if (st.isFIFO()) return 'it is a named pipe';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'it is a device';
  if (st.isSocket()) return 'it is a socket';
  return 'it is not a regular file';
}

/**
 * stdout/stderr lines that survive a reader going away: after EPIPE (or any error) on a stream, further
 * lines to it are dropped instead of crashing the process with an unhandled 'error' event.
 */
export function processOutput(
  stdout: Writable = process.stdout,
  stderr: Writable = process.stderr,
): Output & { readonly closed: { out: boolean; err: boolean } } {
  const closed = { out: false, err: false };
  stdout.on('error', () => {
    closed.out = true;
  });
  stderr.on('error', () => {
    closed.err = true;
  });
  const write = (s: Writable, which: 'out' | 'err', line: string): void => {
    if (closed[which] || s.destroyed) return;
    try {
      s.write(line + '\n');
    } catch {
      closed[which] = true; // a synchronous EPIPE
    }
  };
  const tty = stdout as Writable & { isTTY?: boolean; columns?: number };
  const errTty = (stderr as Writable & { isTTY?: boolean }).isTTY === true;
  // \r back to the line's start, \x1b[K clears what a longer line left; an empty line ends the bar
  const progress = (line: string): void => {
    if (closed.err || stderr.destroyed) return;
    stderr.write(line ? `\r${line}\x1b[K` : '\r\x1b[K');
  };
  return {
    out: (l) => write(stdout, 'out', l),
    err: (l) => write(stderr, 'err', l),
    closed,
    ...(tty.isTTY && tty.columns ? { columns: tty.columns } : {}),
    ...(errTty ? { progress } : {}),
  };
}

/** The refusal when an output is one of the inputs. */
export class SameFileError extends FileError {}

/**
 * Where a command writes `out`: checked before anything is opened for writing (a regular file or a new
 * name; not one of `inputs` by device and inode, so a hard or symbolic link to an input is refused; an
 * existing file only with --force), written under a temporary name in the same folder (`tempPath`), and
 * put in place by commit() only when complete. An interrupted or failed command (ENOSPC, Ctrl-C, a
 * corrupt input) leaves the previous `out`, if any, as it was, and removes its temporary file.
 */
export class OutputFile {
  readonly tempPath: string;
  private done = false;
  private readonly onSignal: (signal: NodeJS.Signals) => void;

  constructor(
    readonly out: string,
    readonly force: boolean,
    inputs: readonly string[],
  ) {
    for (const input of inputs) {
      if (isSameFile(out, input))
        throw new SameFileError(out, `is the input file ${safePath(input)} (the same file by device and inode); write to another path`);
    }
    checkOutputTarget(out);
    if (!force && fs.existsSync(out)) throw new FileError(out, 'already exists; refusing to overwrite it (use --force to replace it)');
    const dir = path.dirname(out);
    this.tempPath = path.join(dir, `.${path.basename(out)}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.partial`);
    // Ctrl-C or a kill while writing: remove the temporary file, then exit as the signal would have
    this.onSignal = (signal) => {
      this.abandon();
      process.kill(process.pid, signal);
    };
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
  }

  /** Puts the complete file in place: renamed over `out` (--force), or linked to a new `out` (never clobbers). */
  commit(): void {
    if (this.done) return;
    withFileErrors(this.out, 'write', () => {
      if (this.force) fs.renameSync(this.tempPath, this.out);
      else {
        fs.linkSync(this.tempPath, this.out); // EEXIST if `out` appeared meanwhile: nothing is replaced
        fs.unlinkSync(this.tempPath);
      }
    });
    this.release();
  }

  /** Removes the temporary file (a failed or interrupted command); `out` is left as it was. */
  abandon(): void {
    if (this.done) return;
    fs.rmSync(this.tempPath, { force: true });
    this.release();
  }

  private release(): void {
    this.done = true;
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}
