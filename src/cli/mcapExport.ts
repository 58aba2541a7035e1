/**
 * `contact-lens export <rec> --mcap out.mcap`: a recording as an MCAP file (the container Foxglove and Lichtblick
 * open; @mcap/core writes it), so contact data sits beside a robot's other topics:
 *   /contact_lens/scene     foxglove.SceneUpdate (JSON): the bodies (boxes, spheres; planes as thin boxes) at their
 *                           poses, and one arrow per contact along its normal, as long as its λn is large
 *   /contact_lens/lambda    per frame: λn of every contact (by contact index), their sum and maximum, the keys
 *   /contact_lens/energy    per frame: kinetic, potential and total energy, the diagnosis' ledger and injected joules
 *   /contact_lens/findings  one message per finding at its frame's time
 * Message times are the frames' simulated times (ns; the first frame's time when a recording starts below zero).
 * Poses are in the product's conventions (z up; docs/recording-format.md), quaternions given as Foxglove's {x,y,z,w}.
 */
import * as fs from 'node:fs';
import { McapWriter } from '@mcap/core';
import { SceneUpdate } from '@foxglove/schemas/jsonschema';
import type { RecordedFrame, RecordingHeader, RecordedShape } from '../format/recording.js';
import { frameEnergyParts } from '../session/diagnose.js';
import { contactKeyText } from '../session/contactKeys.js';
import { openRecordingForCli } from './openRecording.js';
import { Diagnoser } from '../session/diagnose.js';
import { BATCH_DIAGNOSIS } from '../session/diagnosisRun.js';
import { FileError } from './output.js';
import { cliCacheOptions } from '../format/sidecarCache.js';

export const MCAP_TOPICS = {
  scene: '/contact_lens/scene',
  lambda: '/contact_lens/lambda',
  energy: '/contact_lens/energy',
  findings: '/contact_lens/findings',
} as const;

/** Longest contact arrow (m), for the largest λn of the recording's frame. */
const ARROW_MAX_LENGTH = 0.5;
/** Thickness of a plane drawn as a box (m) and its extent (m). */
const PLANE_THICKNESS = 0.01;
const PLANE_EXTENT = 20;

/** Appends to a file descriptor (the IWritable @mcap/core writes through). */
class FileWritable {
  private pos = 0n;
  constructor(private readonly fd: number) {}
  async write(buffer: Uint8Array): Promise<void> {
    let done = 0;
    while (done < buffer.length) done += fs.writeSync(this.fd, buffer, done, buffer.length - done);
    this.pos += BigInt(buffer.length);
  }
  position(): bigint {
    return this.pos;
  }
}

const jsonSchema = (title: string, properties: Record<string, unknown>): Uint8Array =>
  new TextEncoder().encode(JSON.stringify({ title, type: 'object', properties }));

type Topic = keyof typeof MCAP_TOPICS;
const num = { type: 'number' } as const;
const str = { type: 'string' } as const;
/** Each topic's JSON schema: its name and the properties of its messages (the scene's is Foxglove's SceneUpdate). */
const TOPIC_SCHEMAS: Record<Topic, { readonly name: string; readonly data: Uint8Array }> = {
  scene: { name: 'foxglove.SceneUpdate', data: new TextEncoder().encode(JSON.stringify(SceneUpdate)) },
  lambda: {
    name: 'contact_lens.Lambda',
    data: jsonSchema('contact_lens.Lambda', {
      frame: num,
      contacts: num,
      sum: num,
      max: num,
      lambda_n: { type: 'array', items: num },
      keys: { type: 'array', items: str },
    }),
  },
  energy: {
    name: 'contact_lens.Energy',
    data: jsonSchema('contact_lens.Energy', { frame: num, kinetic: num, potential: num, total: num, ledger: { type: 'object' }, injected: { type: 'object' } }),
  },
  findings: {
    name: 'contact_lens.Finding',
    data: jsonSchema('contact_lens.Finding', { frame: num, kind: str, mechanism: str, joules: num, contacts: { type: 'array' }, headline: str }),
  },
};
const TOPICS = Object.keys(MCAP_TOPICS) as Topic[];

/** Registers every topic's schema, then its channel (in MCAP_TOPICS' order); returns the channel ids by topic name. */
async function registerTopics(w: McapWriter): Promise<Record<string, number>> {
  const schemas: number[] = [];
  for (const t of TOPICS) schemas.push(await w.registerSchema({ name: TOPIC_SCHEMAS[t].name, encoding: 'jsonschema', data: TOPIC_SCHEMAS[t].data }));
  const ids: Record<string, number> = {};
  for (const [k, t] of TOPICS.entries())
    ids[MCAP_TOPICS[t]] = await w.registerChannel({ topic: MCAP_TOPICS[t], schemaId: schemas[k], messageEncoding: 'json', metadata: new Map() });
  return ids;
}

const quat = (q: readonly number[]) => ({ x: q[1], y: q[2], z: q[3], w: q[0] });
const color = (r: number, g: number, b: number, a = 1) => ({ r, g, b, a });

/** The rotation taking +x to the unit vector n (shortest arc), as Foxglove's {x, y, z, w}. */
function xTo(n: readonly number[]) {
  const [x, y, z] = n;
  const w = 1 + x; // cos θ + 1 with θ the angle between +x and n
  if (w < 1e-9) return { x: 0, y: 0, z: 1, w: 0 }; // n = −x: half a turn about z
  const s = Math.hypot(w, z, y);
  return { x: 0, y: -z / s, z: y / s, w: w / s };
}

/** A body's primitive in its own frame (an 'other' shape has none: only its name shows). */
function primitive(shape: RecordedShape, size: number) {
  const identity = { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } };
  if ('sphere' in shape) {
    const d = 2 * shape.sphere.radius;
    return { spheres: [{ pose: identity, size: { x: d, y: d, z: d }, color: color(0.3, 0.55, 0.85) }], cubes: [] };
  }
  if ('box' in shape) {
    const h = shape.box.halfExtents;
    return { spheres: [], cubes: [{ pose: identity, size: { x: 2 * h[0], y: 2 * h[1], z: 2 * h[2] }, color: color(0.55, 0.6, 0.7) }] };
  }
  if ('plane' in shape) {
    const n = shape.plane.normal,
      o = shape.plane.offset;
    // the box's thin axis along the normal: its +x turned onto n, centred half a thickness below the surface
    const c = o - PLANE_THICKNESS / 2;
    return {
      spheres: [],
      cubes: [
        {
          pose: { position: { x: n[0] * c, y: n[1] * c, z: n[2] * c }, orientation: xTo(n) },
          size: { x: PLANE_THICKNESS, y: size, z: size },
          color: color(0.8, 0.8, 0.8, 0.4),
        },
      ],
    };
  }
  return { spheres: [], cubes: [] };
}

/** The frame's scene: every body at its pose, the contacts as arrows scaled by λn. */
function sceneUpdate(header: RecordingHeader, f: RecordedFrame, stamp: { sec: number; nsec: number }) {
  const entities: unknown[] = [];
  const n = Math.min(header.bodies.length, f.bodies.length);
  for (let i = 0; i < n; i++) {
    const b = header.bodies[i],
      s = f.bodies[i];
    const p = primitive(b.shape, PLANE_EXTENT);
    // a body's primitives sit at its pose; a plane's pose is in its primitive (a plane does not move)
    if (!('plane' in b.shape)) {
      const pose = { position: { x: s.x[0], y: s.x[1], z: s.x[2] }, orientation: quat(s.q) };
      for (const c of p.cubes) c.pose = pose;
      for (const c of p.spheres) c.pose = pose;
    }
    entities.push({
      timestamp: stamp,
      frame_id: 'world',
      id: `body/${i}`,
      lifetime: { sec: 0, nsec: 0 },
      frame_locked: false,
      metadata: [{ key: 'name', value: b.name }],
      arrows: [],
      cubes: p.cubes,
      spheres: p.spheres,
      cylinders: [],
      lines: [],
      triangles: [],
      texts: [],
      models: [],
    });
  }
  const lam = f.solver.lambda;
  let max = 0;
  for (let k = 0; k < f.contacts.length; k++) max = Math.max(max, lam[3 * k]);
  const arrows = f.contacts.map((c, k) => {
    const len = max > 0 ? (ARROW_MAX_LENGTH * Math.max(0, lam[3 * k])) / max : 0;
    return {
      pose: { position: { x: c.point[0], y: c.point[1], z: c.point[2] }, orientation: xTo(c.normal) },
      shaft_length: 0.8 * len,
      shaft_diameter: 0.01,
      head_length: 0.2 * len,
      head_diameter: 0.025,
      color: color(0.95, 0.35, 0.2),
    };
  });
  entities.push({
    timestamp: stamp,
    frame_id: 'world',
    id: 'contacts',
    lifetime: { sec: 0, nsec: 0 },
    frame_locked: false,
    metadata: [{ key: 'contacts', value: String(f.contacts.length) }],
    arrows,
    cubes: [],
    spheres: [],
    cylinders: [],
    lines: [],
    triangles: [],
    texts: [],
    models: [],
  });
  return { deletions: [], entities };
}

export interface McapSummary {
  readonly frames: number;
  readonly messages: Record<string, number>;
}

/** Writes the recording as MCAP to `out` (never over an existing file). */
export async function exportMcap(file: string, out: string): Promise<McapSummary> {
  let fd: number;
  try {
    fd = fs.openSync(out, 'wx');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new FileError(out, code === 'EEXIST' ? 'already exists; refusing to overwrite it (choose another name)' : `cannot be written (${code})`);
  }
  const counts: Record<string, number> = { [MCAP_TOPICS.scene]: 0, [MCAP_TOPICS.lambda]: 0, [MCAP_TOPICS.energy]: 0, [MCAP_TOPICS.findings]: 0 };
  let t0: number | null = null;
  try {
    const w = new McapWriter({ writable: new FileWritable(fd), useChunks: true, useStatistics: true, useChunkIndex: true, useMessageIndex: true });
    await w.start({ profile: '', library: 'contact-lens' });
    const ids = await registerTopics(w);
    const reader = openRecordingForCli(file, { cache: cliCacheOptions() });
    try {
      const header = reader.header;
      t0 = reader.frameCount > 0 ? Math.min(0, reader.summary(0).time) : 0;
      const nanos = (time: number): bigint => BigInt(Math.max(0, Math.round((time - (t0 ?? 0)) * 1e9)));
      const enc = new TextEncoder();
      let sequence = 0;
      const put = async (topic: string, time: number, data: unknown): Promise<void> => {
        const ns = nanos(time);
        const text = JSON.stringify(data, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
        await w.addMessage({ channelId: ids[topic], sequence: sequence++, logTime: ns, publishTime: ns, data: enc.encode(text) });
        counts[topic]++;
      };
      // the same diagnosis as `diagnose` and `report`, frame by frame: each frame's ledger and injected joules
      const diag = new Diagnoser(header, { ...BATCH_DIAGNOSIS, keepFrames: false });
      for (let i = 0; i < reader.frameCount; i++) {
        const f = reader.frame(i);
        const before = diag.findings.length;
        diag.add(f);
        const d = diag.lastFrame;
        const { kinetic, potential } = frameEnergyParts(header, f);
        const ns = nanos(f.time);
        const stamp = { sec: Number(ns / 1_000_000_000n), nsec: Number(ns % 1_000_000_000n) };
        const lam = f.solver.lambda;
        const ln = f.contacts.map((_, k) => lam[3 * k]);
        await put(MCAP_TOPICS.scene, f.time, sceneUpdate(header, f, stamp));
        await put(MCAP_TOPICS.lambda, f.time, {
          frame: f.frame,
          contacts: ln.length,
          sum: ln.reduce((a, b) => a + b, 0),
          max: ln.reduce((a, b) => Math.max(a, b), 0),
          lambda_n: ln,
          keys: f.contacts.map((c) => contactKeyText(c)),
        });
        const ledger = d ? { ...d.ledger, contacts: undefined } : null;
        await put(MCAP_TOPICS.energy, f.time, {
          frame: f.frame,
          kinetic,
          potential,
          total: kinetic + potential,
          ledger,
          injected: Object.fromEntries(d?.injected ?? []),
        });
        for (const x of diag.findings.slice(before))
          await put(MCAP_TOPICS.findings, f.time, {
            frame: x.frame,
            kind: x.kind,
            mechanism: x.mechanism,
            joules: x.joules,
            contacts: x.contacts,
            headline: x.headline,
          });
      }
      await w.end();
      return { frames: reader.frameCount, messages: counts };
    } finally {
      reader.close();
    }
  } catch (e) {
    fs.closeSync(fd);
    fd = -1;
    fs.rmSync(out, { force: true }); // ours, half written
    throw e;
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}
