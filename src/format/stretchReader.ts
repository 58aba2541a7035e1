/** The hook by which another reader takes over the later stretch of a plain recording (RecordingReader.open). */
import type { Columns } from './recordingColumns.js';

/**
 * Another reader that takes over the later stretch of a plain recording during the open (a thread of its own:
 * src/session/stretch/parallelStretch.ts). This reader indexes the lines before the cut; the other one, the rest.
 */
export interface StretchReader {
  /** Offset of the line from which the other reader takes over (Infinity: not known yet); asked before each line. */
  cutAt(): number;
  /**
   * Once every line before the cut is indexed (`indexed`: this reader's index so far): the index of the lines from
   * the cut on, or null when this reader is to read on from the cut itself.
   */
  rest(cut: { readonly offset: number; readonly line: number }, indexed: Columns): Promise<StretchIndex | null>;
}

/** The other reader's index of the stretch: its rows from `from` on, their line numbers shifted by `lineShift`. */
export interface StretchIndex {
  readonly columns: Readonly<Record<string, Float64Array | Uint32Array | Uint8Array>>;
  readonly from: number;
  readonly lineShift: number;
  /** Where the other reader's reading ended (the file's size as indexed). */
  readonly size: number;
}
