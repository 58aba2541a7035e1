/**
 * Synthetic, protocol-valid frame views for the virtualisation and performance tests: n contacts in one
 * island whose dense A (3n × 3n, symmetric, diagonally dominant) is sent as a heat map when 3n ≤ MAX_MATRIX_ROWS.
 */
import type { ContactState, ContactView, FrameView, IslandView } from '../../src/protocol/inspector.js';
import { MAX_MATRIX_ROWS } from '../../src/protocol/inspector.js';
import { encodeHeatMap, type HeatMap } from '../../src/protocol/heatMap.js';
import { validateHostMessage } from '../../src/protocol/validate.js';
import { rng } from '../rng.js';

const STATES: ContactState[] = ['stick', 'slip', 'open'];

const matrices = new Map<number, HeatMap>();
/** A 3n×3n symmetric matrix with a dominant diagonal and couplings between neighbouring contacts. */
function matrix(rows: number): HeatMap {
  const cached = matrices.get(rows);
  if (cached) return cached;
  const r = rng(rows);
  const A = new Float64Array(rows * rows);
  for (let i = 0; i < rows; i++) {
    A[i * rows + i] = 1 + r() * 3;
    for (let j = i + 1; j < Math.min(rows, i + 9); j++) {
      const v = (r() - 0.5) * 0.4;
      A[i * rows + j] = v;
      A[j * rows + i] = v;
    }
  }
  const heat = encodeHeatMap(A, rows);
  matrices.set(rows, heat);
  return heat;
}

export function syntheticFrame(index: number, n: number, opts: { withMatrix?: boolean } = {}): FrameView {
  const r = rng(1000 + index);
  const contacts: ContactView[] = [];
  for (let k = 0; k < n; k++) {
    const ln = r() * 10;
    contacts.push({
      index: k,
      key: `${k + 1}|0|box${k}/ground`,
      island: 0,
      bodyA: `box${k}`,
      bodyB: 'ground',
      point: [r(), r(), r() * 0.01],
      normal: [0, 0, 1],
      depth: r() * 0.01,
      mu: 0.5,
      e: 0.2,
      lambdaN: ln,
      lambdaT: ln * 0.5 * r(),
      state: STATES[k % 3],
      vnBefore: -r(),
      vnAfter: r() * 0.1,
      excess: (r() - 0.5) * 0.01,
      frictionPower: -r() * 0.01,
      biasVelocity: r() * 0.05,
      biasImpulse: r() * 0.05,
      coneViolation: 0,
    });
  }
  const rows = 3 * n;
  const island: IslandView = {
    contacts: contacts.map((c) => c.index),
    size: rows,
    heat: opts.withMatrix !== false && rows <= MAX_MATRIX_ROWS ? matrix(rows) : null,
    kappa: 1234.5 + index,
    lambdaMin: 0.01,
    lambdaMax: 12.345,
    rankDeficiency: 0,
    method: 'lanczos-estimate',
    causes: ['mass ratio 1000:1 between box0 and ground (synthetic)'],
    ...(rows > MAX_MATRIX_ROWS ? { reason: `A has ${rows} rows; the heat map shows islands up to ${MAX_MATRIX_ROWS}` } : {}),
  };
  const residuals = Array.from({ length: 40 }, (_, i) => Math.pow(10, -i / 5) * (1 + 0.1 * r()));
  const view: FrameView = {
    index,
    frame: index, // frames are numbered from 0, like the model's (docs/recording-format.md "Frame numbers")
    time: (index + 1) / 60,
    status: 'max-iterations',
    solver: 'pgs',
    iterations: 40,
    residuals,
    contacts,
    islands: [island],
    notes: ['synthetic frame'],
  };
  validateHostMessage({ type: 'frame', requestId: 0, view });
  return view;
}
