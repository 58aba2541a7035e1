/**
 * The synthetic recording of bench/session.ts (made-up but valid frames, NOT simulated): 50 unit boxes on a
 * ground plane, each touching it at 4 corners (50 islands of 4 contacts), with small pseudo-random motion,
 * depths and λ. Shared by bench/session.ts and bench/open.ts so both measure the same file.
 */
import * as fs from 'node:fs';
import {
  CONVENTIONS,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  serializeFrame,
  serializeHeader,
  type RecordedFrame,
  type RecordingHeader,
} from '../src/format/recording.js';
import { rng } from '../test/rng.js';

const r4 = (x: number): number => Math.round(x * 1e6) / 1e6;
const dt = 1 / 60,
  mass = 1,
  h = 0.5,
  I = (mass / 3) * (2 * h * h);

function header(BOXES: number): RecordingHeader {
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    producer: { name: 'bench-session-synthetic', version: '0' },
    units: 'SI',
    conventions: CONVENTIONS,
    dt,
    gravity: [0, 0, -9.81],
    bodies: [
      { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, mass: null, inertia: null, static: true },
      ...Array.from({ length: BOXES }, (_, k) => ({
        name: `box-${k}`,
        shape: { box: { halfExtents: [h, h, h] as [number, number, number] } },
        mass,
        inertia: [I, I, I] as [number, number, number],
        static: false,
      })),
    ],
    solver: { name: 'synthetic-pgs', erp: 0.2, slop: 0.001, restVelocityThreshold: 0.5, splitImpulse: false, warmStart: true },
  };
}

function frame(k: number, rand: () => number, BOXES: number, CONTACTS: number): RecordedFrame {
  const bodies: RecordedFrame['bodies'][number][] = [{ x: [0, 0, 0], q: [1, 0, 0, 0], v: [0, 0, 0], w: [0, 0, 0] }];
  const pre: NonNullable<RecordedFrame['pre']>[number][] = [{ v: [0, 0, 0], w: [0, 0, 0], x: [0, 0, 0], q: [1, 0, 0, 0] }];
  const contacts: RecordedFrame['contacts'][number][] = [];
  const lambda: number[] = [];
  for (let b = 0; b < BOXES; b++) {
    const cx = 2 * (b % 10),
      cy = 2 * Math.floor(b / 10);
    const depth = r4(0.001 + 0.002 * rand());
    const z = r4(h - depth);
    const vz = r4(-0.1635 * rand());
    bodies.push({ x: [cx, cy, z], q: [1, 0, 0, 0], v: [0, 0, r4(0.01 * (rand() - 0.5))], w: [0, 0, 0] });
    pre.push({ v: [0, 0, vz], w: [0, 0, 0], x: [cx, cy, z], q: [1, 0, 0, 0] });
    for (let c = 0; c < 4 && contacts.length < CONTACTS; c++) {
      const sx = c & 1 ? h : -h,
        sy = c & 2 ? h : -h;
      contacts.push({
        a: b + 1,
        b: 0,
        point: [cx + sx, cy + sy, r4(-depth)],
        normal: [0, 0, 1],
        t1: [1, 0, 0],
        t2: [0, 1, 0],
        depth,
        mu: 0.5,
        e: 0,
        feature: `box-${b}:v${c}/ground`,
      });
      lambda.push(r4(((mass * 9.81 * dt) / 4) * (0.9 + 0.2 * rand())), r4(1e-4 * (rand() - 0.5)), r4(1e-4 * (rand() - 0.5)));
    }
  }
  return {
    frame: k,
    time: (k + 1) * dt,
    bodies,
    pre,
    contacts,
    solver: {
      name: 'synthetic-pgs',
      status: rand() < 0.95 ? 'converged' : 'max-iterations',
      iterations: 1 + Math.floor(20 * rand()),
      residuals: [r4(rand()), r4(1e-3 * rand())],
      lambda,
    },
    energy: { kinetic: r4(rand()), potential: r4(BOXES * mass * 9.81 * h), total: r4(BOXES * mass * 9.81 * h + rand()) },
  };
}

/** Writes `frames` synthetic frames of `contacts` contacts each to file (the default: 10 000 × 200). */
export function writeSyntheticRecording(file: string, frames = 10_000, contacts = 200): void {
  const boxes = Math.max(1, Math.round(contacts / 4));
  const rand = rng(1);
  const fd = fs.openSync(file, 'w');
  let buf: string[] = [serializeHeader(header(boxes)), '\n'],
    chars = 0;
  for (let k = 0; k < frames; k++) {
    const line = serializeFrame(frame(k, rand, boxes, contacts));
    buf.push(line, '\n');
    chars += line.length;
    if (chars > 8 << 20) {
      fs.writeSync(fd, buf.join(''));
      buf = [];
      chars = 0;
    }
  }
  fs.writeSync(fd, buf.join(''));
  fs.closeSync(fd);
}
