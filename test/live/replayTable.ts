/**
 * The C++ replay engine's input (test/live/replay.cpp): a recording of our engine as a flat table of numbers
 * and names, so that a 60-line C++ program can write the same frames through writers/cpp with no JSON parser.
 * Numbers are written with String(x), the shortest text that reads back bit for bit (strtod).
 */
import * as fs from 'node:fs';
import { RecordingReader } from '../../src/format/recordingFile.js';
import type { RecordedShape } from '../../src/format/recording.js';
import { SOLVER_STATUSES } from '../../src/format/recording.js';

const n = (x: number): string => String(x);
const token = (s: string): string => (s === '' ? '-' : s.replace(/\s/g, '_'));

function shape(s: RecordedShape): string {
  if ('sphere' in s) return `sphere ${n(s.sphere.radius)}`;
  if ('box' in s) return `box ${s.box.halfExtents.map(n).join(' ')}`;
  if ('plane' in s) return `plane ${s.plane.normal.map(n).join(' ')} ${n(s.plane.offset)}`;
  throw new Error('the replay table holds spheres, boxes and planes');
}

/** Writes `table` from the recording `file`; returns the number of frames. */
export function writeReplayTable(file: string, table: string): number {
  const r = RecordingReader.openSync(file);
  const out: string[] = [];
  const h = r.header;
  // the solver's declarations the C++ header can carry: its kind and the numeric parameters (erp, slop, …)
  const params = Object.entries(h.solver ?? {}).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]));
  out.push(
    `header ${n(h.dt)} ${h.gravity.map(n).join(' ')} ${h.bodies.length} ${token(h.solver?.name ?? 'solver')} ${token(typeof h.solver?.kind === 'string' ? h.solver.kind : '')} ${params.length} ${params.map(([k, v]) => `${token(k)} ${n(v)}`).join(' ')}`,
  );
  for (const b of h.bodies)
    out.push(`body ${token(b.name)} ${b.static ? 1 : 0} ${n(b.mass ?? 0)} ${shape(b.shape)} ${(b.inertia ?? []).length} ${(b.inertia ?? []).map(n).join(' ')}`);
  for (let i = 0; i < r.frameCount; i++) {
    const f = r.frame(i);
    const C = f.contacts.length,
      R = f.solver.residuals?.length ?? 0;
    out.push(
      `frame ${f.frame} ${n(f.time)} ${f.bodies.length} ${C} ${f.pre ? 1 : 0} ${f.solver.iterations ?? -1} ${SOLVER_STATUSES.indexOf(f.solver.status)} ${R}`,
    );
    for (const b of f.bodies) out.push([...b.x, ...b.q, ...b.v, ...b.w].map(n).join(' '));
    if (f.pre) for (const p of f.pre) out.push([...p.v, ...p.w].map(n).join(' ') + (p.x && p.q ? ` 1 ${[...p.x, ...p.q].map(n).join(' ')}` : ' 0'));
    for (const c of f.contacts)
      out.push(`${c.a} ${c.b} ${[...c.point, ...c.normal, ...c.t1, ...c.t2, c.depth, c.mu, c.e].map(n).join(' ')} ${token(c.feature ?? '')}`);
    out.push(f.solver.lambda.map(n).join(' ') || '');
    out.push((f.solver.residuals ?? []).map(n).join(' '));
  }
  r.close();
  fs.writeFileSync(table, `${out.join('\n')}\nend\n`);
  return r.frameCount;
}
