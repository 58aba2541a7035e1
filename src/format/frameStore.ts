/**
 * The frame store of a recording's cache (`.NAME.clframes`, beside the `.clcache`): every frame line of
 * STORE_MIN_LINE_BYTES or more that the open indexed, parsed again after it and kept as its value in binary form
 * (jsonBinary.ts), so that a later frame read decodes it instead of parsing megabytes of text
 * (docs/recording-format.md "The recording's cache").
 *
 * The store is never trusted over the data: a read still reads the frame's line and checks it against the
 * CRC-32 the index holds (recordingFile.ts), then takes the value from the store only when the store is the one
 * the cache names (a random token in both) and the record's own CRC-32 matches; otherwise the line is parsed as
 * before. What the store gives is validated like a parsed line.
 *
 * Layout: STORE_MAGIC (8 bytes), the token (TOKEN_BYTES), then one record per frame; the record's offset,
 * length and CRC-32 are in the cache's FRAME_STORE_SECTION (length 0: the frame has no record).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from './bgzf.js';
import { decodeJsonBinary, JsonBinaryEncoder, JsonBinaryError } from './jsonBinary.js';
import { isOurs, type RecordingCache, temporaryPath } from './sidecarCache.js';

export const FRAME_STORE_SECTION = 'frame-store';
export const STORE_MAGIC = Buffer.from('CLFRAMES', 'latin1');
const STORE_SUFFIX = '.clframes';
const TOKEN_BYTES = 16;
const HEAD_BYTES = 8 + TOKEN_BYTES;
/** Lines shorter than this get no record: JSON.parse of 64 KiB takes well under a millisecond, little to save. */
export const STORE_MIN_LINE_BYTES = 64 * 1024;
/** Records are written in batches of about this many bytes (one write call each). */
const WRITE_BATCH_BYTES = 4 << 20;

interface StoreSectionJson {
  readonly path: string;
  readonly token: string;
  readonly bytes: number;
}

/** Writes the store (RecordingReader.buildFrameStore, after the open); finish() puts it in place and into the cache. */
export class FrameStoreWriter {
  private readonly encoder = new JsonBinaryEncoder();
  private offset = new Float64Array(256);
  private length = new Uint32Array(256);
  private crc = new Uint32Array(256);
  private count = 0;
  /** End of the records added / of the bytes written to the file. */
  private pos = HEAD_BYTES;
  private written = HEAD_BYTES;
  /** Records not yet written, copied into one reused buffer (no allocation per frame). */
  private batch: Uint8Array | null = new Uint8Array(WRITE_BATCH_BYTES);
  private batchBytes = 0;
  private fd: number | null;

  private constructor(
    private readonly target: string,
    private readonly temp: string,
    fd: number,
    private readonly token: string,
  ) {
    this.fd = fd;
  }

  /** A writer in the first of the cache's places that can be written (null: none can, or the cache is off). */
  static create(cache: RecordingCache): FrameStoreWriter | null {
    for (const target of cache.companionPaths(STORE_SUFFIX)) {
      if (fs.existsSync(target) && !isOurs(target, STORE_MAGIC)) continue; // someone else's file: never written over
      const temp = temporaryPath(target);
      try {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        const fd = fs.openSync(temp, 'wx');
        const token = crypto.randomBytes(TOKEN_BYTES);
        fs.writeSync(fd, Buffer.concat([STORE_MAGIC, token]), 0, HEAD_BYTES, 0);
        return new FrameStoreWriter(target, temp, fd, token.toString('hex'));
      } catch {
        // this place cannot be written: the next
      }
    }
    return null;
  }

  /**
   * Removes the store of ours at the cache's places: an open that rebuilt the cache without a store (report,
   * diagnose) leaves none of an earlier one behind, which the new cache would not name.
   */
  static removeStale(cache: RecordingCache): void {
    for (const p of cache.companionPaths(STORE_SUFFIX)) {
      try {
        if (isOurs(p, STORE_MAGIC)) fs.rmSync(p, { force: true });
      } catch {
        // in use or not ours to remove: it stays, unnamed by any cache
      }
    }
  }

  /** Frame `index`'s parsed line of `lineBytes` bytes (before anything else sees it); frames come in index order. */
  add(index: number, raw: unknown, lineBytes: number): void {
    if (this.fd === null) return;
    while (this.count < index) this.record(0, 0, 0); // a frame without a record
    const b = lineBytes >= STORE_MIN_LINE_BYTES ? this.encoder.encode(raw) : null;
    if (b === null) return this.record(0, 0, 0);
    this.record(this.pos, b.length, crc32(b));
    if (this.batchBytes + b.length > WRITE_BATCH_BYTES) this.flush();
    if (b.length >= WRITE_BATCH_BYTES) this.write(b);
    else if (this.batch !== null) {
      this.batch.set(b, this.batchBytes);
      this.batchBytes += b.length;
    }
    this.pos += b.length;
  }

  /** Closes the store, puts it in place and names it in the cache; nothing happens to the cache when that fails. */
  finish(cache: RecordingCache, frameCount: number): void {
    if (this.fd === null) return;
    try {
      while (this.count < frameCount) this.record(0, 0, 0);
      this.flush();
      fs.closeSync(this.fd);
      this.fd = null;
      if (fs.existsSync(this.target) && !isOurs(this.target, STORE_MAGIC)) throw new Error('not ours'); // appeared meanwhile
      fs.renameSync(this.temp, this.target);
    } catch {
      this.discard();
      return;
    }
    const json: StoreSectionJson = { path: path.resolve(this.target), token: this.token, bytes: this.pos };
    cache.set(FRAME_STORE_SECTION, {
      json,
      arrays: { offset: this.offset.slice(0, this.count), length: this.length.slice(0, this.count), crc: this.crc.slice(0, this.count) },
    });
  }

  /** Stops writing and removes what was written (the open failed or was cancelled). */
  discard(): void {
    try {
      if (this.fd !== null) fs.closeSync(this.fd);
    } catch {
      // closed already
    }
    this.fd = null;
    this.batch = null;
    try {
      fs.rmSync(this.temp, { force: true });
    } catch {
      // could not be removed: nothing more to do
    }
  }

  private record(offset: number, length: number, crc: number): void {
    if (this.count === this.offset.length) {
      const grow = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
        const g = make(2 * a.length);
        g.set(a);
        return g;
      };
      this.offset = grow(this.offset, (n) => new Float64Array(n));
      this.length = grow(this.length, (n) => new Uint32Array(n));
      this.crc = grow(this.crc, (n) => new Uint32Array(n));
    }
    this.offset[this.count] = offset;
    this.length[this.count] = length;
    this.crc[this.count] = crc;
    this.count++;
  }

  private flush(): void {
    if (this.batch === null || this.batchBytes === 0) return;
    const n = this.batchBytes;
    this.batchBytes = 0;
    this.write(this.batch.subarray(0, n));
  }

  /** Appends bytes to the file (records are written in order: the batch, then a record too large for it). */
  private write(b: Uint8Array): void {
    if (this.fd === null) return;
    try {
      let done = 0;
      while (done < b.length) done += fs.writeSync(this.fd, b, done, b.length - done, this.written + done);
      this.written += b.length;
    } catch {
      this.discard(); // a full disk: no store, the open goes on
    }
  }
}

/** The store named by a cache, open for reads (null when the cache names none, or the file is not that store). */
export class FrameStore {
  private buf: Buffer = Buffer.alloc(0);

  private constructor(
    private fd: number | null,
    private readonly offset: Float64Array,
    private readonly length: Uint32Array,
    private readonly crc: Uint32Array,
  ) {}

  static open(cache: RecordingCache, frameCount: number): FrameStore | null {
    const s = cache.get(FRAME_STORE_SECTION);
    if (!s) return null;
    const j = s.json as Partial<StoreSectionJson>;
    const { offset, length, crc } = s.arrays;
    if (
      typeof j.path !== 'string' ||
      typeof j.token !== 'string' ||
      !(offset instanceof Float64Array) ||
      !(length instanceof Uint32Array) ||
      !(crc instanceof Uint32Array) ||
      offset.length !== frameCount ||
      length.length !== frameCount ||
      crc.length !== frameCount
    )
      return null;
    let fd: number | null = null;
    try {
      fd = fs.openSync(j.path, 'r');
      const st = fs.fstatSync(fd);
      const head = Buffer.alloc(HEAD_BYTES);
      if (!st.isFile() || st.size !== j.bytes || fs.readSync(fd, head, 0, HEAD_BYTES, 0) !== HEAD_BYTES) throw new Error('not the store');
      if (!head.subarray(0, 8).equals(STORE_MAGIC) || head.subarray(8).toString('hex') !== j.token) throw new Error('not the store');
      return new FrameStore(fd, offset, length, crc);
    } catch {
      if (fd !== null) fs.closeSync(fd);
      return null;
    }
  }

  /** Frame i's parsed line, or undefined when the store has no sound record of it (the caller parses the line). */
  read(i: number): unknown {
    const n = this.length[i];
    if (this.fd === null || !(n > 0)) return undefined; // no record, or a frame added after the store (a growing recording)
    if (this.buf.length < n) this.buf = Buffer.allocUnsafe(n);
    const b = this.buf.subarray(0, n);
    try {
      let got = 0;
      while (got < n) {
        const r = fs.readSync(this.fd, b, got, n - got, this.offset[i] + got);
        if (r === 0) return undefined;
        got += r;
      }
      if (crc32(b) !== this.crc[i]) return undefined;
      return decodeJsonBinary(b);
    } catch (e) {
      if (e instanceof JsonBinaryError || (e as NodeJS.ErrnoException).code !== undefined) return undefined;
      throw e;
    }
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    this.buf = Buffer.alloc(0);
  }
}
