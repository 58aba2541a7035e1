/** Opens a recording for a CLI command; a missing or unreadable file becomes a one-line usage error. */
import { safePath } from '../format/messages.js';
import { type OpenOptions, type ReaderCacheOptions, RecordingReader } from '../format/recordingFile.js';
import { UsageError } from './args.js';

export function openRecordingForCli(file: string, options: Pick<OpenOptions, 'validate' | 'onFrame'> & ReaderCacheOptions = {}): RecordingReader {
  try {
    return RecordingReader.openSync(file, options);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code) throw new UsageError(`${safePath(file)}: cannot read the file (${code === 'ENOENT' ? 'no such file' : code})`);
    throw e;
  }
}
