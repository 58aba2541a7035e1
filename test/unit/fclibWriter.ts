/** Test helper: writes FCLIB local problems with h5wasm (the layout of fclib.h), for the reader's tests. */
import type { ContactProblem } from '../../src/engine/problem.js';

type H5 = typeof import('h5wasm/node');
export type Storage = 'csr' | 'csc' | 'triplet';
export interface WriteOptions {
  storage?: Storage;
  omit?: string[];
  q?: Float64Array;
  m?: number;
  badIndex?: boolean;
}

/** Writes an FCLIB local problem (layout of fclib.h: W sparse, q, μ, spacedim) with h5wasm. */
export async function writeFclib(path: string, p: ContactProblem, o: WriteOptions = {}): Promise<void> {
  const h5wasm = await import('h5wasm/node'); // an ES module (its exports have no require condition)
  await h5wasm.ready;
  const n = p.size,
    storage = o.storage ?? 'csr';
  const rows: number[] = [],
    cols: number[] = [],
    vals: number[] = [];
  const major = storage === 'csc' ? 'col' : 'row';
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      const [i, j] = major === 'row' ? [a, b] : [b, a];
      if (p.A[i * n + j] !== 0) {
        rows.push(i);
        cols.push(j);
        vals.push(p.A[i * n + j]);
      }
    }
  }
  const ptr = new Int32Array(n + 1);
  for (let k = 0; k < rows.length; k++) ptr[(major === 'row' ? rows[k] : cols[k]) + 1]++;
  for (let a = 0; a < n; a++) ptr[a + 1] += ptr[a];
  const inner = Int32Array.from(major === 'row' ? cols : rows);
  if (o.badIndex) inner[3] = n + 5;
  const f = new h5wasm.File(path, 'w');
  const put = (g: InstanceType<H5['Group']>, name: string, data: Int32Array | Float64Array, full: string) => {
    if (!o.omit?.includes(full)) g.create_dataset({ name, data });
  };
  const local = f.create_group('fclib_local');
  const W = local.create_group('W');
  put(W, 'm', Int32Array.of(o.m ?? n), '/fclib_local/W/m');
  put(W, 'n', Int32Array.of(n), '/fclib_local/W/n');
  put(W, 'nz', Int32Array.of(storage === 'csr' ? -2 : storage === 'csc' ? -1 : vals.length), '/fclib_local/W/nz');
  put(W, 'nzmax', Int32Array.of(vals.length), '/fclib_local/W/nzmax');
  put(W, 'p', storage === 'triplet' ? Int32Array.from(rows) : ptr, '/fclib_local/W/p');
  put(W, 'i', storage === 'triplet' ? Int32Array.from(cols) : inner, '/fclib_local/W/i');
  put(W, 'x', Float64Array.from(vals), '/fclib_local/W/x');
  const vectors = local.create_group('vectors');
  put(vectors, 'q', o.q ?? p.b.map((x) => -x), '/fclib_local/vectors/q');
  put(vectors, 'mu', Float64Array.from(p.mu), '/fclib_local/vectors/mu');
  put(local, 'spacedim', Int32Array.of(3), '/fclib_local/spacedim');
  f.close();
}
