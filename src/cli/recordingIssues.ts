/**
 * What a reader found wrong with a recording, printed the same way by `report` and `diagnose`: skipped lines
 * (grouped: the first few with file:line, then a count) and header/frame warnings, on stderr.
 */
import type { RecordingReader } from '../format/recordingFile.js';
import type { Output } from './output.js';
import { formatCount } from '../engine/index.js';

/** Skipped lines printed one by one before the rest is only counted. */
export const LISTED_SKIPPED_LINES = 5;

export function printRecordingIssues(reader: RecordingReader, io: Output): void {
  const total = reader.errorCount + reader.frameCount;
  if (reader.errorCount > 0) {
    io.err(
      `warning: ${reader.file}: skipped ${reader.errorCount} of ${formatCount(total, 'frame line')}; the diagnosis covers the ${formatCount(reader.frameCount, 'valid frame')}:`,
    );
    for (const e of reader.errors.slice(0, LISTED_SKIPPED_LINES)) io.err(`  ${e.message}`);
    if (reader.errorCount > LISTED_SKIPPED_LINES) io.err(`  … and ${reader.errorCount - LISTED_SKIPPED_LINES} more`);
  }
  for (const w of reader.warnings) io.err(`warning: ${w}`);
}
