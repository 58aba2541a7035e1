/**
 * Contact Lens recording writer for JavaScript and TypeScript engines (docs/engine-authors.md): the project's own
 * writer, which validates every frame against the format before writing it (what it writes, the reader accepts),
 * streams one line per frame (flushed at 1 MiB and on close), writes shortest round-trip doubles, refuses NaN
 * and ±∞ naming the line and field, never overwrites a file unless { force: true }, and writes blocked gzip with
 * { gzip: true }. Bundled for plain Node as dist/writer.js (CommonJS) by `npm run build`.
 */
export { RecordingWriter, type WriterOptions } from '../../src/format/recordingFile.js';
export {
  CONVENTIONS,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordedBody,
  type RecordedBodyState,
  type RecordedContact,
  type RecordedExternalImpulse,
  type RecordedFrame,
  type RecordedInitialState,
  type RecordedManifold,
  type RecordedPreState,
  type RecordedShape,
  type RecordingHeader,
  type SoftContactParameters,
} from '../../src/format/recording.js';
export { FormatError } from '../../src/format/messages.js';
