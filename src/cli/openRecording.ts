/** Opens a recording for a CLI command; a missing or unreadable file becomes a one-line usage error. */
import { safePath } from '../format/messages.js';
import { type OpenOptions, type ReaderCacheOptions, RecordingReader } from '../format/recordingFile.js';
import { UsageError } from './args.js';

/** A file the open cannot read as one line naming it; any other error as it is. */
function unreadable(file: string, e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  return code ? new UsageError(`${safePath(file)}: cannot read the file (${code === 'ENOENT' ? 'no such file' : code})`) : e;
}

export function openRecordingForCli(file: string, options: Pick<OpenOptions, 'validate' | 'onFrame'> & ReaderCacheOptions = {}): RecordingReader {
  try {
    return RecordingReader.openSync(file, options);
  } catch (e) {
    throw unreadable(file, e);
  }
}

/** The same, by the reader's asynchronous open (which a stretch read on another thread can join: OpenOptions.stretch). */
export async function openRecordingForCliAsync(file: string, options: OpenOptions & ReaderCacheOptions = {}): Promise<RecordingReader> {
  try {
    return await RecordingReader.open(file, options);
  } catch (e) {
    throw unreadable(file, e);
  }
}
