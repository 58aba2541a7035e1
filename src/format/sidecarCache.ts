/**
 * The sidecar cache of a recording: what one full read of it computed (the frame index, a gzip file's access
 * index, the inspector's per-frame and per-contact columns, the findings, a report), kept in one file so that
 * opening the recording again costs a read of that file instead of a pass over the data.
 *
 * Where: beside the recording as `.<name>.clcache` (hidden), or — when that folder cannot be written or
 * something that is not our cache already has the name — in a cache folder (the CLI's user cache folder, the
 * extension's storage) under a name derived from the recording's absolute path. Nothing else is ever written
 * over: a cache file starts with CACHE_MAGIC, and a file at the sidecar name without it is left alone.
 *
 * Validity: a cache names the recording's size, modification time and the CRC-32 of its first and last
 * 64 KiB, the cache format and the code that wrote it; any difference makes it stale and it is rebuilt. The
 * cache is never trusted over the data: a frame read through the cached index is still parsed, validated and
 * checked to be the frame the index says it is (recordingFile.ts), and a cache that does not read back whole
 * (truncated, damaged) is ignored and rebuilt.
 *
 * Layout (little-endian): CACHE_MAGIC (8 bytes), directory length (u32), the directory (UTF-8 JSON:
 * fingerprint, sections with their JSON values and the place of their typed arrays), zero padding to a
 * multiple of 8, then the arrays' bytes, each 8-byte aligned, then the CRC-32 of everything before (u32).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crc32 } from './bgzf.js';

export const CACHE_MAGIC = Buffer.from('CLCACHE\n', 'latin1');
/** Version of the layout and of what the sections hold; a cache of another version is stale. */
export const CACHE_VERSION = 1;
/** Bytes at each end of the recording whose CRC-32 the fingerprint holds. */
const PROBE_BYTES = 64 * 1024;
/** Recordings smaller than this get no cache with cache: 'auto' (a pass over them is quick). */
export const CACHE_MIN_BYTES = 8 * 2 ** 20;

export type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array;
const ARRAY_TYPES = { f64: Float64Array, f32: Float32Array, i32: Int32Array, u32: Uint32Array, u8: Uint8Array } as const;
type ArrayType = keyof typeof ARRAY_TYPES;
const typeOf = (a: TypedArray): ArrayType =>
  a instanceof Float64Array ? 'f64' : a instanceof Float32Array ? 'f32' : a instanceof Int32Array ? 'i32' : a instanceof Uint32Array ? 'u32' : 'u8';

/** One section: a JSON value and named typed arrays. */
export interface CacheSection {
  readonly json: unknown;
  readonly arrays: Readonly<Record<string, TypedArray>>;
}

/** Where caches go and whether they are used. */
export interface CacheOptions {
  /** 'auto' (default): recordings of at least CACHE_MIN_BYTES; 'always'; 'off': never read or written. */
  readonly mode?: 'auto' | 'always' | 'off';
  /** The folder for caches that cannot be written beside the recording (null: none). */
  readonly dir?: string | null;
  /**
   * Also keep the parsed frames in a frame store beside the cache (frameStore.ts; about half the recording's
   * uncompressed size on disk) for fast frame reads: for readers that seek (the inspector), not for one pass
   * (report, diagnose). Default false.
   */
  readonly frameStore?: boolean;
}

/** The recording's identity as the cache records it. */
interface Fingerprint {
  readonly size: number;
  readonly mtimeMs: number;
  readonly head: number;
  readonly tail: number;
}

/** The code that writes caches: its version and the bundle it runs from (a rebuilt bundle may diagnose differently). */
let codeIdentity: string | null = null;
function codeId(): string {
  if (codeIdentity === null) {
    let stamp = '';
    try {
      const st = fs.statSync(__filename);
      stamp = `${st.size}:${Math.round(st.mtimeMs)}`;
    } catch {
      stamp = 'unknown';
    }
    codeIdentity = `${CACHE_VERSION}:${stamp}`;
  }
  return codeIdentity;
}

function fingerprint(fd: number): Fingerprint {
  const st = fs.fstatSync(fd);
  const probe = (pos: number): number => {
    const n = Math.max(0, Math.min(PROBE_BYTES, st.size - pos));
    const b = Buffer.allocUnsafe(n);
    let got = 0;
    while (got < n) {
      const r = fs.readSync(fd, b, got, n - got, pos + got);
      if (r === 0) break;
      got += r;
    }
    return crc32(b.subarray(0, got));
  };
  // whole milliseconds: what every file system and a copy that keeps times (cp -p, rsync -t) preserve
  return { size: st.size, mtimeMs: Math.round(st.mtimeMs), head: probe(0), tail: probe(Math.max(0, st.size - PROBE_BYTES)) };
}

const sameFingerprint = (a: Fingerprint, b: Fingerprint): boolean => a.size === b.size && a.mtimeMs === b.mtimeMs && a.head === b.head && a.tail === b.tail;

/** The user's cache folder for the CLI ($CONTACT_LENS_CACHE_DIR, else the platform's cache folder). */
export function userCacheDir(): string {
  const env = process.env.CONTACT_LENS_CACHE_DIR;
  if (env) return env;
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'contact-lens');
  if (process.platform === 'win32') return path.join(process.env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'contact-lens', 'Cache');
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(home, '.cache'), 'contact-lens');
}

/** The cache options the CLI uses: $CONTACT_LENS_CACHE (auto, always, off) and the user's cache folder. */
export function cliCacheOptions(): CacheOptions {
  const m = process.env.CONTACT_LENS_CACHE;
  return { mode: m === 'off' || m === 'always' ? m : 'auto', dir: userCacheDir() };
}

/** The sidecar name beside a recording. */
export const sidecarPath = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}.clcache`);

/** The name in the cache folder: a digest of the recording's absolute path (with its base name, to be recognisable). */
export const folderCachePath = (dir: string, file: string): string =>
  path.join(
    dir,
    `${path
      .basename(file)
      .replace(/[^\w.-]/g, '_')
      .slice(0, 60)}-${crypto.createHash('sha256').update(path.resolve(file)).digest('hex').slice(0, 16)}.clcache`,
  );

/** A temporary name beside `p` for a file written there and then renamed to `p` (unique per process and call). */
export const temporaryPath = (p: string): string => `${p}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;

/** True when `p` is a regular file that starts with `magic` (CACHE_MAGIC: a cache of ours, to replace). */
export function isOurs(p: string, magic: Uint8Array = CACHE_MAGIC): boolean {
  let fd: number;
  try {
    const st = fs.lstatSync(p);
    if (!st.isFile()) return false;
    fd = fs.openSync(p, 'r');
  } catch {
    return false;
  }
  try {
    const b = Buffer.alloc(magic.length);
    fs.readSync(fd, b, 0, b.length, 0);
    return b.equals(magic);
  } finally {
    fs.closeSync(fd);
  }
}

/** JSON with non-finite numbers kept ({"$num": "Infinity"}), which findings and ledgers may hold. */
const replacer = (_k: string, v: unknown): unknown => (typeof v === 'number' && !Number.isFinite(v) ? { $num: String(v) } : v);
const reviver = (_k: string, v: unknown): unknown =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { $num?: unknown }).$num === 'string'
    ? Number((v as { $num: string }).$num)
    : v;

interface Directory {
  readonly version: number;
  readonly code: string;
  readonly recording: Fingerprint;
  readonly sections: Record<string, { json: unknown; arrays: Record<string, { type: ArrayType; offset: number; length: number }> }>;
}

/**
 * A recording's cache: the sections read from its cache file (when one is valid) and those added since,
 * written back by save(). Opened with the recording's descriptor (its fingerprint is taken from that).
 */
export class RecordingCache {
  private sections = new Map<string, CacheSection>();
  private dirty = false;
  /** Why the cache was not used, for a progress line or a test ('absent', 'stale', 'damaged'). */
  status: 'fresh' | 'absent' | 'stale' | 'damaged' | 'off' = 'absent';
  /** The cache file read or written last. */
  where: string | null = null;

  private constructor(
    readonly file: string,
    private readonly print: Fingerprint | null,
    private readonly options: CacheOptions,
  ) {}

  /** The cache of the recording open at `fd` (sections empty when there is no valid cache). */
  static open(file: string, fd: number, options: CacheOptions = {}): RecordingCache {
    const mode = options.mode ?? 'auto';
    const size = fs.fstatSync(fd).size;
    if (mode === 'off' || (mode === 'auto' && size < CACHE_MIN_BYTES)) {
      const c = new RecordingCache(file, null, options);
      c.status = 'off';
      return c;
    }
    const c = new RecordingCache(file, fingerprint(fd), options);
    for (const p of c.candidates()) {
      const r = c.readFile(p);
      if (r === 'absent') continue;
      c.where = p;
      c.status = r;
      if (r === 'fresh') break;
    }
    return c;
  }

  get enabled(): boolean {
    return this.print !== null;
  }

  private candidates(): string[] {
    const out = [sidecarPath(this.file)];
    if (this.options.dir) out.push(folderCachePath(this.options.dir, this.file));
    return out;
  }

  /** Where a file that goes with the cache may be written, in order: the cache's places with `.clcache` → `suffix`. */
  companionPaths(suffix: string): string[] {
    return this.enabled ? this.candidates().map((p) => p.replace(/\.clcache$/, suffix)) : [];
  }

  get(name: string): CacheSection | undefined {
    return this.sections.get(name);
  }

  set(name: string, section: CacheSection): void {
    if (!this.enabled) return;
    this.sections.set(name, section);
    this.dirty = true;
  }

  private readFile(p: string): 'absent' | 'fresh' | 'stale' | 'damaged' {
    let buf: Buffer;
    try {
      if (!fs.lstatSync(p).isFile()) return 'absent';
      buf = fs.readFileSync(p);
    } catch {
      return 'absent';
    }
    if (buf.length < CACHE_MAGIC.length + 8 || !buf.subarray(0, CACHE_MAGIC.length).equals(CACHE_MAGIC)) return 'damaged';
    if (crc32(buf.subarray(0, buf.length - 4)) !== buf.readUInt32LE(buf.length - 4)) return 'damaged';
    let dir: Directory;
    try {
      const n = buf.readUInt32LE(CACHE_MAGIC.length);
      dir = JSON.parse(buf.toString('utf8', CACHE_MAGIC.length + 4, CACHE_MAGIC.length + 4 + n), reviver) as Directory;
    } catch {
      return 'damaged';
    }
    if (dir.version !== CACHE_VERSION || dir.code !== codeId() || !this.print || !sameFingerprint(dir.recording, this.print)) return 'stale';
    const sections = new Map<string, CacheSection>();
    for (const [name, s] of Object.entries(dir.sections)) {
      const arrays: Record<string, TypedArray> = {};
      for (const [k, a] of Object.entries(s.arrays)) {
        const T = ARRAY_TYPES[a.type];
        if (!T || a.offset % 8 !== 0 || a.offset + a.length * T.BYTES_PER_ELEMENT > buf.length - 4) return 'damaged';
        // a copy: the arrays outlive the file's buffer, which is released
        arrays[k] = new T((buf.buffer as ArrayBuffer).slice(buf.byteOffset + a.offset, buf.byteOffset + a.offset + a.length * T.BYTES_PER_ELEMENT));
      }
      sections.set(name, { json: s.json, arrays });
    }
    this.sections = sections;
    return 'fresh';
  }

  /** Writes the sections (when any were added): beside the recording, else in the cache folder; false when neither could be written. */
  save(): boolean {
    if (!this.enabled || !this.dirty) return false;
    const bytes = this.serialise();
    for (const p of this.candidates()) {
      if (fs.existsSync(p) && !isOurs(p)) continue; // someone else's file: never written over
      if (this.writeAtomically(p, bytes)) {
        this.where = p;
        this.dirty = false;
        return true;
      }
    }
    return false;
  }

  private writeAtomically(p: string, bytes: Buffer): boolean {
    const tmp = temporaryPath(p);
    try {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(tmp, bytes, { flag: 'wx' });
      if (fs.existsSync(p) && !isOurs(p)) throw new Error('not ours'); // appeared meanwhile
      fs.renameSync(tmp, p);
      return true;
    } catch {
      try {
        fs.rmSync(tmp, { force: true });
      } catch {
        // the temporary file could not be removed: nothing more to do
      }
      return false;
    }
  }

  private serialise(): Buffer {
    const blobs: Buffer[] = [];
    const dir: Directory = { version: CACHE_VERSION, code: codeId(), recording: this.print!, sections: {} };
    const placed: { a: TypedArray; rel: number }[] = [];
    let rel = 0;
    for (const [name, s] of this.sections) {
      const arrays: Directory['sections'][string]['arrays'] = {};
      for (const [k, a] of Object.entries(s.arrays)) {
        arrays[k] = { type: typeOf(a), offset: rel, length: a.length };
        placed.push({ a, rel });
        rel += Math.ceil(a.byteLength / 8) * 8;
      }
      dir.sections[name] = { json: s.json, arrays };
    }
    // the arrays' offsets are relative until the directory's length is known: two passes
    let text = JSON.stringify(dir, replacer);
    let start = 0;
    for (let pass = 0; pass < 3; pass++) {
      start = Math.ceil((CACHE_MAGIC.length + 4 + Buffer.byteLength(text)) / 8) * 8;
      const fixed: Directory = {
        ...dir,
        sections: Object.fromEntries(
          Object.entries(dir.sections).map(([n, s]) => [
            n,
            { json: s.json, arrays: Object.fromEntries(Object.entries(s.arrays).map(([k, a]) => [k, { ...a, offset: start + a.offset }])) },
          ]),
        ),
      };
      const next = JSON.stringify(fixed, replacer);
      if (Math.ceil((CACHE_MAGIC.length + 4 + Buffer.byteLength(next)) / 8) * 8 === start) {
        text = next;
        break;
      }
      text = next;
    }
    const head = Buffer.alloc(start);
    CACHE_MAGIC.copy(head, 0);
    const t = Buffer.from(text, 'utf8');
    head.writeUInt32LE(t.length, CACHE_MAGIC.length);
    t.copy(head, CACHE_MAGIC.length + 4);
    blobs.push(head);
    for (const { a } of placed) {
      const b = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
      blobs.push(b);
      const pad = Math.ceil(a.byteLength / 8) * 8 - a.byteLength;
      if (pad) blobs.push(Buffer.alloc(pad));
    }
    const body = Buffer.concat(blobs);
    const tail = Buffer.alloc(4);
    tail.writeUInt32LE(crc32(body), 0);
    return Buffer.concat([body, tail]);
  }
}
