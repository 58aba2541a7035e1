/** Island builders shared by the sparse-solver tests (ipm-sparse, newton-sparse): sphere columns, box pyramids, speculative piles. */
import { body, contact, staticBody } from './helpers.js';
import type { BodyState, ContactPoint } from '../../src/engine/problem.js';

/** Deterministic numbers in [−1, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (2 * s) / 4294967296 - 1;
  };
}

/** A column of spheres (one contact per pair: J has full row rank, so λ is unique), sliding sideways. */
export function sphereColumn(k: number, mu: number, seed: number): { bodies: BodyState[]; contacts: ContactPoint[] } {
  const r = rng(seed);
  const bodies = [staticBody()];
  const contacts: ContactPoint[] = [];
  for (let i = 0; i < k; i++) {
    const m = 1 + 2 * Math.abs(r());
    bodies.push(body(m, 0.4 * m * 0.25, [0, 0, 0.5 + i], [0.3 * r(), 0.3 * r(), -0.2 + 0.1 * r()], [0.5 * r(), 0.5 * r(), 0]));
    contacts.push(contact(i + 1, i, [0.02 * r(), 0.02 * r(), i], [0, 0, 1], mu, 0, 0.002 * Math.abs(r())));
  }
  return { bodies, contacts };
}

/**
 * A 2-D pyramid of unit boxes in the x–z plane: `rows` boxes at the bottom, each box above resting on two
 * boxes below; four contacts per support face (the redundant coplanar contacts of box stacking).
 */
export function boxPyramid(
  rows: number,
  mu: number,
  makeBody: (x: number, level: number, j: number) => BodyState = (x, level, j) => body(1, 1 / 6, [x, 0, 0.5 + level], [0.01 * ((j % 3) - 1), 0, -0.16]),
): { bodies: BodyState[]; contacts: ContactPoint[]; index: number[][] } {
  const bodies: BodyState[] = [staticBody()];
  const contacts: ContactPoint[] = [];
  const index: number[][] = [];
  for (let level = 0; level < rows; level++) {
    index.push([]);
    for (let j = 0; j < rows - level; j++) {
      bodies.push(makeBody(j + 0.5 * level, level, j));
      index[level].push(bodies.length - 1);
    }
  }
  const corners = (x0: number, x1: number, z: number, a: number, b: number): void => {
    for (const [x, y] of [
      [x0, -0.5],
      [x1, -0.5],
      [x1, 0.5],
      [x0, 0.5],
    ])
      contacts.push(contact(a, b, [x, y, z], [0, 0, 1], mu, 0, 0.001));
  };
  for (let j = 0; j < rows; j++) corners(j - 0.5, j + 0.5, 0, index[0][j], 0);
  for (let level = 1; level < rows; level++)
    for (let j = 0; j < rows - level; j++) {
      const x = j + 0.5 * level;
      corners(x - 0.5, x, level, index[level][j], index[level - 1][j]);
      corners(x, x + 0.5, level, index[level][j], index[level - 1][j + 1]);
    }
  return { bodies, contacts, index };
}

/**
 * A tumbling box pyramid (random masses 1–4 kg, velocities and spins; μ = 0.5) with speculative side
 * contacts: four per pair of neighbouring boxes of a row, normal +x, apart by a gap of 2–12 mm (Catto
 * GDC 2013) — the separating rows with large −b of the world step's piles. Deterministic per seed.
 */
export function speculativePile(rows: number, seed: number): { bodies: BodyState[]; contacts: ContactPoint[] } {
  const r = rng(seed),
    mu = 0.5;
  const { bodies, contacts, index } = boxPyramid(rows, mu, (x, level) => {
    const m = 1 + 3 * Math.abs(r());
    return body(m, m / 6, [x, 0, 0.5 + level], [0.3 * r(), 0.3 * r(), -0.16 + 0.05 * r()], [0.3 * r(), 0.3 * r(), 0.3 * r()]);
  });
  for (let level = 0; level < rows; level++)
    for (let j = 0; j + 1 < rows - level; j++) {
      const x = j + 0.5 * level + 0.5;
      for (const [y, z] of [
        [-0.5, level],
        [0.5, level],
        [0.5, level + 1],
        [-0.5, level + 1],
      ])
        contacts.push({ ...contact(index[level][j + 1], index[level][j], [x, y, z], [1, 0, 0], mu, 0, 0), gap: 0.002 + 0.01 * Math.abs(r()) });
    }
  return { bodies, contacts };
}

/** max |a − b| / max |b|: the relative difference of two vectors. */
export const relDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let d = 0,
    m = 0;
  for (let i = 0; i < a.length; i++) {
    d = Math.max(d, Math.abs(a[i] - b[i]));
    m = Math.max(m, Math.abs(b[i]));
  }
  return d / m;
};
