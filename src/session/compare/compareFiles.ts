/**
 * `diff` of two recordings, streamed (docs/compare.md): both files are indexed once by the reader's byte
 * scanner (RecordingReader, validate 'on-read'), their frames aligned by time, and each pair read, compared and
 * dropped — memory holds the two indexes and a frame pair, whatever the files' sizes. Two shortcuts keep it
 * at the speed of the disk where it can be: before the divergence, frame lines that are byte for byte the same
 * (the same engine run twice, plain files in our conventions, the same bodies) are not parsed; after it, only
 * the bodies' states are read from each line (lineBodies.ts). Gzip files and files the reader converts on read
 * are read frame by frame through the reader.
 */
import * as fs from 'node:fs';
import { RecordingReader } from '../../format/recordingFile.js';
import type { RecordedBodyState, RecordedFrame } from '../../format/recording.js';
import { bodiesFromLine } from './lineBodies.js';
import { RunComparison, type RunDiff, type UnmatchedFrames } from './runComparison.js';
import { DEFAULT_TOLERANCE, type DiffTolerance } from './tolerance.js';

export interface CompareFilesOptions {
  readonly tolerance?: DiffTolerance;
  /** Called every few frames with the fraction of frames done. */
  readonly onProgress?: (fraction: number) => void;
  /** Checked between frames: an aborted comparison throws the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Two frames are at the same time when they are closer than this fraction of the smaller step. */
export const SAME_TIME_FRACTION = 1e-3;
/**
 * Bytes of a line read first when only its bodies are needed, per body (a state written with shortest round-trip
 * doubles is ≈ 300 bytes) and for the keys before them: writers put "bodies" near the start (ours after frame and
 * time), so a busy frame's 2 MiB line is read in full only when its bodies are not in this prefix.
 */
export const BODIES_PREFIX_PER_BODY = 400;
export const BODIES_PREFIX_BASE = 4096;

/** Reads frame lines' bytes of a plain recording (positions from the reader's index), into one reused buffer. */
class LineBytes {
  private buf = Buffer.alloc(0);
  private fd: number | null;
  constructor(file: string) {
    this.fd = fs.openSync(file, 'r');
  }
  read(offset: number, length: number): Buffer | null {
    if (this.fd === null) return null;
    if (this.buf.length < length) this.buf = Buffer.allocUnsafe(Math.max(length, 2 * this.buf.length));
    let got = 0;
    while (got < length) {
      const n = fs.readSync(this.fd, this.buf, got, length - got, offset + got);
      if (n === 0) return null;
      got += n;
    }
    return this.buf.subarray(0, length);
  }
  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** One run on disk: its reader, and its lines' bytes when it is a plain file read without conversion. */
class RunFile {
  readonly lines: LineBytes | null;
  constructor(readonly reader: RecordingReader) {
    this.lines = !reader.compressed && !reader.header.declared ? new LineBytes(reader.file) : null;
  }
  line(i: number, prefix = Number.POSITIVE_INFINITY): Buffer | null {
    if (!this.lines) return null;
    const s = this.reader.summary(i);
    return this.lines.read(s.offset, Math.min(s.length, prefix));
  }
  bodies(i: number): readonly RecordedBodyState[] {
    const count = this.reader.header.bodies.length;
    const head = this.line(i, BODIES_PREFIX_BASE + BODIES_PREFIX_PER_BODY * count);
    let fast = head ? bodiesFromLine(head, head.length, count) : null;
    if (!fast && head && head.length < this.reader.summary(i).length) {
      const line = this.line(i);
      fast = line ? bodiesFromLine(line, line.length, count) : null;
    }
    return fast ?? this.reader.frame(i).bodies;
  }
  /** Frame i and, when it is the step right before, frame i − 1. */
  previous(i: number, f: RecordedFrame): RecordedFrame | undefined {
    return i > 0 && this.reader.summary(i - 1).frame === f.frame - 1 ? this.reader.frame(i - 1) : undefined;
  }
  close(): void {
    this.lines?.close();
    this.reader.close();
  }
}

/** Frames of one run only: their count and the first and last time (no list: the files may hold millions). */
class Unmatched {
  count = 0;
  first = 0;
  last = 0;
  push(t: number): void {
    if (this.count++ === 0) this.first = t;
    this.last = t;
  }
  result(): UnmatchedFrames {
    return this.count ? { count: this.count, first: this.first, last: this.last } : { count: 0 };
  }
}

/** Do byte-equal lines of the two runs mean equal frames? Plain files in our conventions with the same bodies in the same order. */
function bytesDecide(a: RunFile, b: RunFile, cmp: RunComparison): boolean {
  const ha = a.reader.header,
    hb = b.reader.header;
  return (
    a.lines !== null &&
    b.lines !== null &&
    ha.bodies.length === hb.bodies.length &&
    cmp.bodies.bToA.every((i, j) => i === j) &&
    cmp.bodies.headerDifferences.size === 0
  );
}

/** Compares two open recordings (closes neither). */
export function compareReaders(ra: RecordingReader, rb: RecordingReader, options: CompareFilesOptions = {}): RunDiff {
  const a = new RunFile(ra),
    b = new RunFile(rb);
  try {
    return compareRuns(a, b, options);
  } finally {
    a.lines?.close();
    b.lines?.close();
  }
}

function compareRuns(a: RunFile, b: RunFile, options: CompareFilesOptions): RunDiff {
  const ra = a.reader,
    rb = b.reader;
  const cmp = new RunComparison(ra.header, rb.header, options.tolerance ?? DEFAULT_TOLERANCE);
  const same = bytesDecide(a, b, cmp);
  const eps = SAME_TIME_FRACTION * Math.min(ra.header.dt, rb.header.dt);
  const onlyA = new Unmatched(),
    onlyB = new Unmatched();
  let i = 0,
    j = 0,
    lastReport = 0,
    bytesSkipped = 0;
  const na = ra.frameCount,
    nb = rb.frameCount;
  while (i < na && j < nb) {
    options.signal?.throwIfAborted();
    const ta = ra.summary(i).time,
      tb = rb.summary(j).time;
    if (ta < tb - eps) {
      onlyA.push(ta);
      i++;
      continue;
    }
    if (tb < ta - eps) {
      onlyB.push(tb);
      j++;
      continue;
    }
    if (!cmp.diverged) {
      const la = same ? a.line(i) : null;
      const lb = la ? b.line(j) : null;
      if (la && lb && la.equals(lb)) {
        cmp.framesCompared++;
        bytesSkipped++;
      } else {
        const fa = ra.frame(i),
          fb = rb.frame(j);
        const ii = i,
          jj = j;
        cmp.frames(fa, fb, () => ({ prevA: a.previous(ii, fa), prevB: b.previous(jj, fb) }));
      }
    } else {
      const s = ra.summary(i);
      cmp.states(s.frame, s.time, a.bodies(i), b.bodies(j));
    }
    i++;
    j++;
    if (options.onProgress && i - lastReport >= 16) {
      lastReport = i;
      options.onProgress(Math.min(i / na, j / nb));
    }
  }
  for (; i < na; i++) onlyA.push(ra.summary(i).time);
  for (; j < nb; j++) onlyB.push(rb.summary(j).time);
  const notes: string[] = [];
  for (const r of [ra, rb])
    if (r.errorCount) notes.push(`${r.file}: ${r.errorCount} line${r.errorCount === 1 ? '' : 's'} skipped (${r.errors[0]?.message ?? ''})`);
  if (bytesSkipped) notes.push(`${bytesSkipped} frame pair${bytesSkipped === 1 ? '' : 's'} identical byte for byte`);
  return cmp.result(onlyA.result(), onlyB.result(), notes);
}

/** Opens, compares and closes two recordings. */
export function compareFiles(fileA: string, fileB: string, options: CompareFilesOptions = {}): RunDiff {
  const ra = RecordingReader.openSync(fileA, { validate: 'on-read' });
  let rb: RecordingReader;
  try {
    rb = RecordingReader.openSync(fileB, { validate: 'on-read' });
  } catch (e) {
    ra.close();
    throw e;
  }
  const a = new RunFile(ra),
    b = new RunFile(rb);
  try {
    return compareRuns(a, b, options);
  } finally {
    a.close();
    b.close();
  }
}
