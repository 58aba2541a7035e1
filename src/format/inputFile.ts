/**
 * Reading a whole input file (a problem or scene file) safely: only a regular file of bounded size is read
 * (a named pipe would block the reading thread for good, a device such as /dev/zero never ends); anything
 * else is one FormatError line naming the file.
 */
import * as fs from 'node:fs';
import { FormatError } from './messages.js';

/** Largest problem or scene file read into memory (bytes); recordings are streamed and have no such limit. */
export const MAX_WHOLE_FILE_BYTES = 256 * 1024 * 1024;

/** What a non-regular file is, for messages. */
export function fileKind(st: fs.Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The bytes of a regular file of at most maxBytes (opened without blocking, checked on the open descriptor). */
export function readRegularFile(path: string, file: string = path, maxBytes = MAX_WHOLE_FILE_BYTES): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new FormatError(file, '(file)', `cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new FormatError(file, '(file)', `is ${fileKind(st)}, not a regular file; not read`);
    if (st.size > maxBytes)
      throw new FormatError(
        file,
        '(file)',
        `is ${(st.size / 2 ** 20).toFixed(0)} MiB; the limit for this kind of file is ${(maxBytes / 2 ** 20).toFixed(0)} MiB`,
      );
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * True when two paths name the same file: the same device and inode (a hard link or a symbolic link to a
 * file is the same file under another name; comparing real paths misses hard links). False when either
 * does not exist.
 */
export function isSameFile(a: string, b: string): boolean {
  let sa: fs.Stats, sb: fs.Stats;
  try {
    sa = fs.statSync(a);
    sb = fs.statSync(b);
  } catch {
    return false;
  }
  return sa.dev === sb.dev && sa.ino === sb.ino;
}
