/**
 * Reader for FCLIB local frictional-contact problems stored in HDF5 (FCLIB library, src/fclib.h;
 * Acary, Brémond, Koziara, Pérignon, "FCLIB: a collection of discrete 3D frictional contact problems",
 * INRIA report RT-0444, 2014). The local problem is
 *     u = W r + q,   (u, r) satisfying Coulomb's law with coefficients μ, per contact (normal, t1, t2);
 * our problem (docs/problem-format.md) is min ½λᵀAλ − bᵀλ over the cones with w = Aλ − b, so
 *     A = W,  b = −q,  λ = r,  w = u.
 * W is stored as FCLIB's sparse matrix (/fclib_local/W/{m,n,nz,nzmax,p,i,x}): nz = −1 compressed columns,
 * nz = −2 compressed rows, nz ≥ 0 triplets with p = row and i = column indices (fclib.h, struct
 * fclib_matrix). Every error names the file and the dataset.
 */
import { MAX_PROBLEM_CONTACTS, makeProblem, ProblemError, type ContactProblem } from '../engine/index.js';
import { FormatError, safeText } from './messages.js';
import { withFileAccess } from './hdf5Access.js';
import { discardH5, type H5, isFatalH5Error, loadH5 } from './h5wasmModule.js';

/** The 8-byte HDF5 format signature (HDF5 File Format Specification, "Format Signature"). */
const HDF5_SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a] as const;

/**
 * True when the bytes carry the HDF5 signature: the superblock sits at byte 0 or, after a user block,
 * at 512, 1024, 2048, … (HDF5 File Format Specification, "Superblock").
 */
export function isHdf5(bytes: Uint8Array): boolean {
  for (let at = 0; at + HDF5_SIGNATURE.length <= bytes.length; at = at === 0 ? 512 : 2 * at) {
    if (HDF5_SIGNATURE.every((c, k) => bytes[at + k] === c)) return true;
  }
  return false;
}

/** A pair (r, u) as FCLIB stores a solution or a guess: λ = r, w = u in our notation. */
export interface FclibPair {
  readonly r: Float64Array;
  readonly u: Float64Array;
}

export interface FclibLocalProblem {
  readonly id: string;
  readonly file: string;
  /** /fclib_local/info/title and description ('' when absent). */
  readonly title: string;
  readonly description: string;
  /** A = W, b = −q, μ. */
  readonly matrix: ContactProblem;
  /** How W was stored: 'csr', 'csc' or 'triplet', and its number of stored entries. */
  readonly storage: 'csr' | 'csc' | 'triplet';
  readonly storedEntries: number;
  /** /solution (r, u), or null. */
  readonly solution: FclibPair | null;
  /** /guesses/1 … /guesses/N. */
  readonly guesses: readonly FclibPair[];
}

type H5File = InstanceType<H5['File']>;
type H5Dataset = InstanceType<H5['Dataset']>;

/** Throws the one-line "not an HDF5 file" error unless the bytes (the file's first KiB suffice) carry the signature. */
export function checkHdf5Signature(bytes: Uint8Array, file: string): void {
  if (!isHdf5(bytes)) throw new FormatError(file, '(hdf5)', 'not an HDF5 file (no HDF5 signature at byte 0, 512, 1024, …)');
}

/**
 * True when a problem file is to be read as FCLIB HDF5: it carries the HDF5 signature, whatever its name, or
 * it is named .hdf5/.h5 — then without the signature it is the one-line "not an HDF5 file" error (thrown).
 * Anything else is a JSON problem (docs/problem-format.md).
 */
export function isFclibInput(bytes: Uint8Array, file: string): boolean {
  if (isHdf5(bytes)) return true;
  if (!/\.(hdf5|h5)$/i.test(file)) return false;
  checkHdf5Signature(bytes, file);
  return true;
}

export interface FclibReadOptions {
  /**
   * Let HDF5 read other files this one points to (external links, external raw storage, virtual datasets;
   * regular files only). Default false: such a file is refused with one line naming the dataset, since
   * those can name any local path (src/format/hdf5Access.ts).
   */
  readonly allowExternal?: boolean;
}

/**
 * Reads an FCLIB local problem from the HDF5 file at `path` (absolute; h5wasm's Node build reads the real file
 * system itself, NODERAWFS); `file` is the name used in messages. Every dataset's size is checked from its
 * shape before a byte of it is read.
 */
export async function readFclibLocal(path: string, file: string, options: FclibReadOptions = {}): Promise<FclibLocalProblem> {
  const h5 = await loadH5();
  try {
    return withFileAccess(path, options.allowExternal === true, (refused) => {
      let f: H5File;
      try {
        f = new h5.File(path, 'r');
      } catch (e) {
        throw new FormatError(file, '(hdf5)', `cannot be opened as HDF5 (${oneLine(e)})`);
      }
      try {
        return readLocal(new Reader(h5, f, file, refused, options.allowExternal === true));
      } finally {
        f.close();
      }
    });
  } catch (e) {
    if (e instanceof FormatError || e instanceof ProblemError) throw e;
    // anything else came from inside h5wasm on a damaged file: one line; an aborted instance is replaced
    if (isFatalH5Error(e)) discardH5();
    throw new FormatError(file, '(hdf5)', `the HDF5 library failed while reading it (${oneLine(e) || 'no message'}); the file is damaged`);
  }
}

/**
 * One line from an exception: for HDF5's error stack ("#000: … in H5Fopen(): unable to open file", …, deepest
 * last) the deepest entry, which says what is actually wrong (e.g. "truncated file: eof = …").
 */
function oneLine(e: unknown): string {
  const text = String((e as Error)?.message ?? e);
  const causes = [...text.matchAll(/#\d+:.*?\(\): (.*)$/gm)].map((m) => m[1].trim());
  return (causes.length ? causes[causes.length - 1] : text.split('\n')[0]).slice(0, 200);
}

/** h5wasm's metadata type classes (H5T_class_t): the numbers FCLIB stores. */
const H5T_INTEGER = 0,
  H5T_FLOAT = 1;

/** Walks the file; every dataset is checked (links, layout, shape, type) before it is read. */
class Reader {
  constructor(
    readonly h5: H5,
    readonly f: H5File,
    readonly file: string,
    private readonly refused: () => readonly string[],
    /** The user opted in to this file's links to other files (FclibReadOptions.allowExternal). */
    private readonly allowExternal: boolean,
  ) {}
  fail(path: string, detail: string): never {
    throw new FormatError(this.file, path, detail);
  }
  /** The one-line reason for an HDF5 failure at `path`: another file it asked for, or HDF5's own message. */
  private failRead(path: string, e: unknown): never {
    const other = this.refused();
    if (other.length > 0) this.failExternal(path, `reads another file (${safeText(other[0].replace(/\/{2,}/g, '/'), 120)})`);
    this.fail(path, `cannot be read (${oneLine(e)})`);
  }
  private failExternal(path: string, what: string): never {
    this.fail(
      path,
      `${what}: refused, only the file you named is read (an external link, external raw storage or a virtual dataset can point at any local file; \`contact-lens solve --allow-external\` reads such a file)`,
    );
  }
  /**
   * The object at `path` with every link on the way checked first, so that an external link is never
   * followed: h5wasm's get() would traverse an external link in the middle of a path (HDF5 resolves it).
   */
  private lookup(path: string): ReturnType<H5File['get']> {
    const parts = path.split('/').filter((x) => x !== '');
    let sofar = '';
    let o: ReturnType<H5File['get']> = null;
    for (const [k, part] of parts.entries()) {
      sofar += `/${part}`;
      try {
        o = this.f.get(sofar);
      } catch (e) {
        this.failRead(sofar, e);
      }
      // (h5wasm's get() probes the target of an external link; the probe is refused unless the user opted in)
      if (o instanceof this.h5.ExternalLink) {
        if (!this.allowExternal) this.failExternal(sofar, `is an external link to ${o.filename}:${o.obj_path}`);
        o = this.followed(sofar, k === parts.length - 1);
      }
      if (this.refused().length > 0) this.failRead(sofar, null);
      if (o == null || o instanceof this.h5.BrokenSoftLink) return null;
    }
    return o;
  }
  /**
   * What an external link at `path` points to, when the user opted in: HDF5 follows it when the object is
   * opened (h5wasm tells only "an external link"); the last part of a path is read as a dataset.
   */
  private followed(path: string, last: boolean): ReturnType<H5File['get']> {
    return last ? new this.h5.Dataset(this.f.file_id, path) : new this.h5.Group(this.f.file_id, path);
  }
  has(path: string): boolean {
    return this.lookup(path) != null;
  }
  /**
   * A dataset with at most `maxEntries` entries according to its shape (checked before anything is read),
   * neither virtual nor stored in another file.
   */
  dataset(path: string, maxEntries: number, limit: string): { d: H5Dataset; entries: number } {
    const o = this.lookup(path);
    if (o == null) this.fail(path, 'missing dataset');
    if (!(o instanceof this.h5.Dataset)) this.fail(path, 'expected a dataset, found a group');
    let meta: H5Dataset['metadata'];
    try {
      meta = o.metadata;
    } catch (e) {
      this.failRead(path, e);
    }
    const sources = meta.virtual_sources;
    if (sources && sources.length > 0 && !this.allowExternal)
      this.failExternal(path, `is a virtual dataset mapped onto ${sources[0].file_name}:${sources[0].dset_name}`);
    let entries = 1;
    for (const extent of meta.shape ?? []) entries *= extent;
    if (!(entries <= maxEntries)) this.fail(path, `declares ${entries} entries; ${limit}, so it is not read`);
    return { d: o, entries };
  }
  /** A numeric dataset as doubles, with at most `maxEntries` entries (or exactly `len`). */
  numbers(path: string, maxEntries: number, limit: string, len?: number): Float64Array {
    const { d } = this.dataset(path, len ?? maxEntries, len === undefined ? limit : `expected ${len}`);
    const type = d.metadata.type;
    if (type !== H5T_INTEGER && type !== H5T_FLOAT) this.fail(path, `expected numbers, found HDF5 type class ${type}`);
    let v: unknown;
    try {
      v = d.value;
    } catch (e) {
      this.failRead(path, e);
    }
    if (this.refused().length > 0) this.failRead(path, null); // external raw storage: its bytes were not read
    let out: Float64Array;
    if (v instanceof BigInt64Array || v instanceof BigUint64Array) out = Float64Array.from(v, (x) => Number(x));
    else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) out = Float64Array.from(v as unknown as ArrayLike<number>);
    else if (typeof v === 'number' || typeof v === 'bigint') out = Float64Array.of(Number(v));
    else this.fail(path, `expected numbers, found ${d.dtype === undefined ? 'another type' : `type ${String(d.dtype)}`}`);
    if (len !== undefined && out.length !== len) this.fail(path, `has ${out.length} entries, expected ${len}`);
    for (let k = 0; k < out.length; k++) {
      if (!Number.isFinite(out[k])) this.fail(`${path}[${k}]`, `is ${out[k]}, expected a finite number`);
    }
    return out;
  }
  /** One integer (a scalar or a 1-entry dataset, as FCLIB writes them). */
  int(path: string): number {
    const v = this.numbers(path, 1, 'one integer', 1)[0];
    if (!Number.isInteger(v)) this.fail(path, `is ${v}, expected an integer`);
    return v;
  }
  /** Integer indices in [0, bound): at least minLen of them, at most maxLen. */
  indices(path: string, minLen: number, maxLen: number, bound: number): Float64Array {
    const v = this.numbers(path, maxLen, `at most ${maxLen} indices are read`);
    if (v.length < minLen) this.fail(path, `has ${v.length} entries, expected at least ${minLen}`);
    for (let k = 0; k < minLen; k++) {
      if (!Number.isInteger(v[k]) || v[k] < 0 || v[k] >= bound) this.fail(`${path}[${k}]`, `is ${v[k]}, expected an index in [0, ${bound})`);
    }
    return v;
  }
  /** An optional info string: one string (a scalar or one entry) of at most MAX_INFO_BYTES. */
  text(path: string): string {
    if (!this.has(path)) return '';
    const { d } = this.dataset(path, 1, 'an FCLIB info text is one string');
    let v: unknown;
    try {
      v = d.value;
    } catch (e) {
      this.failRead(path, e);
    }
    if (Array.isArray(v)) v = v[0];
    if (typeof v !== 'string') return '';
    if (v.length > MAX_INFO_CHARS) this.fail(path, `is ${v.length} characters long; an FCLIB info text is read up to ${MAX_INFO_CHARS}`);
    return v.trim();
  }
}

/** Longest /fclib_local/info text shown (characters). */
export const MAX_INFO_CHARS = 1 << 16;
/** Most /guesses read (FCLIB's test problems hold a few). */
export const MAX_GUESSES = 100;

/** Largest problem read: A is dense (n² doubles), 6000² · 8 B = 288 MB, about the 256 MiB limit of JSON problem files. */
export const MAX_UNKNOWNS = 3 * MAX_PROBLEM_CONTACTS;
const MAX_CONTACTS = MAX_PROBLEM_CONTACTS;

function readLocal(r: Reader): FclibLocalProblem {
  if (!r.has('/fclib_local')) {
    if (r.has('/fclib_global')) r.fail('/fclib_global', 'FCLIB global problems are not supported; give a local problem (/fclib_local)');
    r.fail('/fclib_local', 'missing group: not an FCLIB local problem');
  }
  for (const extra of ['/fclib_local/V', '/fclib_local/R']) {
    if (r.has(extra)) r.fail(extra, 'local problems with the extra matrices V, R (equality constraints) are not supported');
  }
  const spacedim = r.has('/fclib_local/spacedim') ? r.int('/fclib_local/spacedim') : 3;
  if (spacedim !== 3) r.fail('/fclib_local/spacedim', `is ${spacedim}; only three-dimensional problems (spacedim 3) are supported`);
  // the contact count is checked from mu's shape before mu is read (a small file may declare 10⁹ entries)
  const mu = r.numbers(
    '/fclib_local/vectors/mu',
    MAX_CONTACTS,
    `our solvers hold A densely and take at most ${MAX_CONTACTS} contacts (${MAX_UNKNOWNS} unknowns)`,
  );
  const C = mu.length;
  if (C === 0) r.fail('/fclib_local/vectors/mu', 'is empty: at least one contact is required');
  const n = 3 * C;
  const q = r.numbers('/fclib_local/vectors/q', n, '', n);
  const { A, storage, storedEntries } = readW(r, n);
  const b = q.map((x) => -x); // b = −q (module comment)
  let matrix: ContactProblem;
  try {
    // W as real codes write it (slightly asymmetric or indefinite): taken as given, reported (problem.ts asGiven)
    matrix = makeProblem({ A, b, mu, asGiven: true });
  } catch (e) {
    if (!(e instanceof ProblemError)) throw e;
    const field = e.field.replace(/^A\[/, '/fclib_local/W[').replace(/^b$/, '/fclib_local/vectors/q').replace(/^mu/, '/fclib_local/vectors/mu');
    throw new FormatError(r.file, field, e.message.slice(e.field.length + 2));
  }
  const pair = (base: string): FclibPair => ({ r: r.numbers(`${base}/r`, n, '', n), u: r.numbers(`${base}/u`, n, '', n) });
  const solution = r.has('/solution') ? pair('/solution') : null;
  const guesses: FclibPair[] = [];
  if (r.has('/guesses')) {
    const count = r.int('/guesses/number_of_guesses');
    if (count > MAX_GUESSES) r.fail('/guesses/number_of_guesses', `is ${count}; at most ${MAX_GUESSES} guesses are read`);
    for (let g = 1; g <= count; g++) guesses.push(pair(`/guesses/${g}`));
  }
  const title = r.text('/fclib_local/info/title');
  const id = r.file.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
  return { id, file: r.file, title, description: r.text('/fclib_local/info/description'), matrix, storage, storedEntries, solution, guesses };
}

/** W as a dense n×n row-major matrix, from FCLIB's CSR, CSC or triplet storage (duplicates are summed). */
function readW(r: Reader, n: number): { A: Float64Array; storage: 'csr' | 'csc' | 'triplet'; storedEntries: number } {
  const W = '/fclib_local/W';
  const m = r.int(`${W}/m`),
    cols = r.int(`${W}/n`);
  if (m !== n) r.fail(`${W}/m`, `is ${m}, expected 3·C = ${n} (C = ${n / 3} from /fclib_local/vectors/mu)`);
  if (cols !== n) r.fail(`${W}/n`, `is ${cols}, expected 3·C = ${n} (C = ${n / 3} from /fclib_local/vectors/mu)`);
  const nz = r.int(`${W}/nz`);
  // a dense n×n matrix has n² entries; more stored entries (duplicates) are refused before they are read
  const maxStored = n * n;
  const tooMany = `W is ${n}×${n}: at most ${maxStored} stored entries are read`;
  if (nz > maxStored) r.fail(`${W}/nz`, `is ${nz}; ${tooMany}`);
  const A = new Float64Array(n * n);
  if (nz >= 0) {
    const rows = r.indices(`${W}/p`, nz, maxStored, n),
      colIdx = r.indices(`${W}/i`, nz, maxStored, n),
      x = r.numbers(`${W}/x`, maxStored, tooMany);
    if (x.length < nz) r.fail(`${W}/x`, `has ${x.length} entries, expected at least nz = ${nz}`);
    for (let k = 0; k < nz; k++) A[rows[k] * n + colIdx[k]] += x[k];
    return { A, storage: 'triplet', storedEntries: nz };
  }
  if (nz !== -1 && nz !== -2) r.fail(`${W}/nz`, `is ${nz}; expected −1 (compressed columns), −2 (compressed rows) or a triplet count ≥ 0`);
  const ptr = r.numbers(`${W}/p`, n + 1, '', n + 1);
  for (let k = 0; k <= n; k++) {
    const bad = !Number.isInteger(ptr[k]) || (k === 0 ? ptr[0] !== 0 : ptr[k] < ptr[k - 1]);
    if (bad) r.fail(`${W}/p[${k}]`, `is ${ptr[k]}; compressed pointers start at 0 and never decrease`);
  }
  const count = ptr[n];
  if (count > maxStored) r.fail(`${W}/p[${n}]`, `is ${count}; ${tooMany}`);
  const idx = r.indices(`${W}/i`, count, maxStored, n),
    x = r.numbers(`${W}/x`, maxStored, tooMany);
  if (x.length < count) r.fail(`${W}/x`, `has ${x.length} entries, expected at least p[${n}] = ${count}`);
  const rowMajor = nz === -2;
  for (let outer = 0; outer < n; outer++) {
    for (let k = ptr[outer]; k < ptr[outer + 1]; k++) {
      const inner = idx[k];
      A[rowMajor ? outer * n + inner : inner * n + outer] += x[k];
    }
  }
  return { A, storage: rowMajor ? 'csr' : 'csc', storedEntries: count };
}
