/** A recording read whole into memory: its header and every frame (the benches that replay small recordings). */
import { RecordingReader } from '../src/format/recordingFile.js';
import type { RecordedFrame, RecordingHeader } from '../src/format/recording.js';

export function framesOf(file: string): { header: RecordingHeader; frames: RecordedFrame[] } {
  const r = RecordingReader.openSync(file);
  try {
    return { header: r.header, frames: Array.from({ length: r.frameCount }, (_, i) => r.frame(i)) };
  } finally {
    r.close();
  }
}
