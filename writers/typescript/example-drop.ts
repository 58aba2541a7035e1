/**
 * A ball dropped on the ground, recorded with the TypeScript writer (docs/recording-format.md) — the same physics
 * and numbers as writers/python/example_drop.py, writers/cpp/example.cpp and writers/rust/examples/drop.rs.
 *
 *   npx tsx writers/typescript/example-drop.ts drop.rec.jsonl [--force]
 *
 * Semi-implicit Euler with one sequential-impulse contact (Catto, "Iterative Dynamics with Temporal Coherence",
 * GDC 2005): gravity first, then the ground contact's normal impulse λn = max(0, m·b_n) with
 * b_n = −(1 + e)·v_n + (erp/Δt)·max(0, depth − slop) (the format's own b); restitution e = 0.5 only above the
 * rest-velocity threshold; then the position update. Prints the bits of the last height for a bit-exact check.
 */
import { RecordingWriter, type RecordedContact, type RecordingHeader } from './index.js';

const DT = 1.0 / 120.0,
  G = -9.81,
  RADIUS = 0.1,
  MASS = 1.0;
const E = 0.5,
  MU = 0.5,
  ERP = 0.2,
  SLOP = 0.005,
  REST = 0.5,
  FRAMES = 240;

function main(argv: string[]): number {
  if (argv.length < 1) {
    console.error('usage: example-drop.ts OUT.rec.jsonl [--force]');
    return 2;
  }
  const header: RecordingHeader = {
    format: 'contact-lens-recording',
    version: 1,
    producer: { name: 'contact-lens-typescript-example', version: '1.0' },
    units: 'SI',
    conventions: { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' },
    dt: DT,
    gravity: [0.0, 0.0, G],
    bodies: [
      { name: 'ground', shape: { plane: { normal: [0.0, 0.0, 1.0], offset: 0.0 } }, mass: null, inertia: null, static: true },
      {
        name: 'ball',
        shape: { sphere: { radius: RADIUS } },
        mass: MASS,
        inertia: [0.4 * MASS * RADIUS * RADIUS, 0.4 * MASS * RADIUS * RADIUS, 0.4 * MASS * RADIUS * RADIUS],
        static: false,
      },
    ],
    solver: { name: 'sequential-impulse', kind: 'iterative-fixed', maxIterations: 1, erp: ERP, slop: SLOP, restVelocityThreshold: REST },
  };
  const rec = RecordingWriter.create(argv[0], header, { force: argv.includes('--force') });
  const q = [1.0, 0.0, 0.0, 0.0] as const,
    zero = [0.0, 0.0, 0.0] as const;
  let z = 1.0,
    vz = 0.0;
  try {
    for (let k = 0; k < FRAMES; k++) {
      const vPre = vz + G * DT; // gravity, before the contact solve
      const depth = RADIUS - z; // ground plane z = 0, normal +z from ground (b) into ball (a)
      let contacts: RecordedContact[] = [],
        lambda: number[] = [];
      if (depth >= 0.0) {
        const e = -vPre > REST ? E : 0.0;
        const bn = -(1.0 + e) * vPre + (ERP / DT) * Math.max(0.0, depth - SLOP);
        const lambdaN = Math.max(0.0, MASS * bn); // A_nn = 1/m
        contacts = [
          {
            a: 1,
            b: 0,
            point: [0.0, 0.0, z - RADIUS],
            normal: [0.0, 0.0, 1.0],
            t1: [1.0, 0.0, 0.0],
            t2: [0.0, 1.0, 0.0],
            depth,
            mu: MU,
            e: E,
            feature: 'ball/ground',
          },
        ];
        lambda = [lambdaN, 0.0, 0.0];
      }
      vz = vPre + (lambda.length ? lambda[0] : 0.0) / MASS;
      const zPre = z;
      z = z + vz * DT; // positions after the solve (semi-implicit Euler)
      rec.writeFrame({
        frame: k,
        time: (k + 1) * DT,
        bodies: [
          { x: zero, q, v: zero, w: zero },
          { x: [0.0, 0.0, z], q, v: [0.0, 0.0, vz], w: zero },
        ],
        pre: [
          { v: zero, w: zero },
          { v: [0.0, 0.0, vPre], w: zero, x: [0.0, 0.0, zPre], q },
        ],
        contacts,
        solver: { name: 'sequential-impulse', status: 'converged', iterations: contacts.length ? 1 : 0, lambda },
      });
    }
  } finally {
    rec.close();
  }
  const bits = new DataView(new ArrayBuffer(8));
  bits.setFloat64(0, z, true);
  console.log(`wrote ${FRAMES} frames to ${argv[0]}; last z bits ${bits.getBigUint64(0, true)}`);
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  console.error(`example-drop.ts: ${(e as Error).message}`); // one clear line, no stack trace
  process.exitCode = 1;
}
