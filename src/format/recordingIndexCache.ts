/**
 * A recording's index as a sidecar-cache section (sidecarCache.ts) and back: the header, the frame index
 * columns, the skipped lines and warnings, and a compressed file's BGZF block table or gzip access index —
 * everything RecordingReader keeps after its pass, so a second open reads no frame.
 */
import { BlockTable } from './bgzfSplitter.js';
import { BgzfRanges, GzipRanges, type RangeSource } from './compressedInput.js';
import { GzipIndex } from './gzipIndex.js';
import type { RecordingHeader } from './recording.js';
import { Columns, type OpenOptions, type RecordingIssue } from './recordingIndexer.js';
import type { CacheSection, TypedArray } from './sidecarCache.js';

/** The section's name. */
export const INDEX_SECTION = 'recording-index';

/** What a reader keeps after indexing. */
export interface IndexState {
  readonly header: RecordingHeader;
  readonly columns: Columns;
  readonly errors: readonly RecordingIssue[];
  readonly errorCount: number;
  readonly warnings: readonly string[];
  /** Bytes of the file read (its size). */
  readonly size: number;
  readonly validate: NonNullable<OpenOptions['validate']>;
  readonly ranges: RangeSource | null;
}

interface IndexJson {
  readonly header: RecordingHeader;
  readonly errors: readonly RecordingIssue[];
  readonly errorCount: number;
  readonly warnings: readonly string[];
  readonly size: number;
  readonly validate: IndexState['validate'];
  readonly compression:
    | null
    | { readonly kind: 'bgzf'; readonly count: number }
    | { readonly kind: 'gzip'; readonly count: number; readonly members: number; readonly totalOut: number };
}

export function indexSection(s: IndexState): CacheSection {
  const arrays: Record<string, TypedArray> = {};
  for (const [k, a] of Object.entries(s.columns.arrays())) arrays[`col.${k}`] = a;
  let compression: IndexJson['compression'] = null;
  if (s.ranges instanceof BgzfRanges) {
    const t = s.ranges.table;
    arrays['bgzf.c'] = t.c.slice(0, t.count);
    arrays['bgzf.u'] = t.u.slice(0, t.count);
    compression = { kind: 'bgzf', count: t.count };
  } else if (s.ranges instanceof GzipRanges) {
    const g = s.ranges.index;
    arrays['gz.bit'] = g.bit.slice(0, g.count);
    arrays['gz.out'] = g.out.slice(0, g.count);
    arrays['gz.member'] = g.member.slice(0, g.count);
    arrays['gz.stored'] = g.storedInSpan.slice(0, g.count);
    arrays['gz.blockBit'] = g.blockBit.slice(0, g.blocks);
    arrays['gz.blockOut'] = g.blockOut.slice(0, g.blocks);
    arrays['gz.wOff'] = g.wOff.slice(0, g.count + 1);
    arrays['gz.windows'] = new Uint8Array(g.windows.buffer, g.windows.byteOffset, g.windows.byteLength);
    arrays['gz.endBit'] = g.memberEndBit.slice(0, g.members);
    arrays['gz.endOut'] = g.memberEndOut.slice(0, g.members);
    compression = { kind: 'gzip', count: g.count, members: g.members, totalOut: g.totalOut };
  }
  const json: IndexJson = {
    header: s.header,
    errors: s.errors,
    errorCount: s.errorCount,
    warnings: s.warnings,
    size: s.size,
    validate: s.validate,
    compression,
  };
  return { json, arrays };
}

const f64 = (a: unknown, n: number): Float64Array<ArrayBuffer> | null =>
  a instanceof Float64Array && a.length === n ? (a as Float64Array<ArrayBuffer>) : null;

/** The reader's state from a section (null when the section does not hold a whole index). */
export function fromIndexSection(section: CacheSection, fd: () => number): IndexState | null {
  const j = section.json as IndexJson;
  const a = section.arrays;
  if (!j || typeof j !== 'object' || !j.header || !Array.isArray(j.errors) || !Array.isArray(j.warnings)) return null;
  const colArrays: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) if (k.startsWith('col.')) colArrays[k.slice(4)] = v;
  const columns = Columns.fromArrays(colArrays);
  if (!columns) return null;
  let ranges: RangeSource | null = null;
  const c = j.compression;
  if (c?.kind === 'bgzf') {
    const t = new BlockTable();
    const cs = f64(a['bgzf.c'], c.count),
      us = f64(a['bgzf.u'], c.count);
    if (!cs || !us) return null;
    t.c = cs;
    t.u = us;
    t.count = c.count;
    ranges = new BgzfRanges(fd, t);
  } else if (c?.kind === 'gzip') {
    const g = new GzipIndex();
    const bit = f64(a['gz.bit'], c.count),
      out = f64(a['gz.out'], c.count),
      member = f64(a['gz.member'], c.count),
      wOff = f64(a['gz.wOff'], c.count + 1),
      endBit = f64(a['gz.endBit'], c.members),
      endOut = f64(a['gz.endOut'], c.members);
    const stored = a['gz.stored'],
      windows = a['gz.windows'];
    if (!bit || !out || !member || !wOff || !endBit || !endOut || !(stored instanceof Uint8Array) || !(windows instanceof Uint8Array)) return null;
    if (stored.length !== c.count || wOff[c.count] !== windows.length) return null;
    // the block boundaries (a read stops at the first after its bytes); without them, at the next access point
    const blockBit = a['gz.blockBit'],
      blockOut = a['gz.blockOut'];
    const blocks = blockBit instanceof Float64Array && blockOut instanceof Float64Array && blockBit.length === blockOut.length ? blockBit.length : 0;
    Object.assign(g, {
      bit,
      out,
      member,
      wOff,
      memberEndBit: endBit,
      memberEndOut: endOut,
      storedInSpan: stored,
      ...(blocks > 0 ? { blocks, blockBit, blockOut } : {}),
      count: c.count,
      members: c.members,
      totalOut: c.totalOut,
    });
    g.windows = Buffer.from(windows.buffer, windows.byteOffset, windows.byteLength);
    ranges = new GzipRanges(fd, g);
  }
  return { header: j.header, columns, errors: j.errors, errorCount: j.errorCount, warnings: j.warnings, size: j.size, validate: j.validate, ranges };
}
