/**
 * Checks the compare-mode messages (./compare.ts) on receipt, as ./validate.ts does the others: a bad message
 * throws ProtocolError naming the field. Pure functions.
 */
import { DIVERGENCE_KINDS } from './compare.js';
import { ProtocolError } from './protocolError.js';
import { POSE_STRIDE } from './scene.js';
import { arr, int, numOrNull, numOrNullArray, obj, str } from './fieldChecks.js';

/** `compare` (host → webview): n is a's frame count. */
export function validateCompareView(v: unknown, field: string): void {
  if (v === null) return;
  const c = obj(v, field);
  const b = obj(c.b, `${field}.b`);
  str(b.title, `${field}.b.title`);
  str(b.file, `${field}.b.file`);
  const nb = int(b.frameCount, `${field}.b.frameCount`);
  const aligned = arr(c.aligned, `${field}.aligned`);
  const n = aligned.length;
  aligned.forEach((x, i) => {
    if (x !== null && (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x >= nb))
      throw new ProtocolError(`${field}.aligned[${i}]`, `must be null or an index < ${nb}`);
  });
  str(c.summary, `${field}.summary`);
  numOrNullArray(c.growth, `${field}.growth`, n);
  const t = obj(c.timeline, `${field}.timeline`);
  for (const k of ['total', 'kinetic', 'potential', 'iterations']) numOrNullArray(t[k], `${field}.timeline.${k}`, n);
  arr(c.notes, `${field}.notes`).forEach((x, i) => str(x, `${field}.notes[${i}]`));
  arr(c.bodies, `${field}.bodies`).forEach((x, i) => {
    const o = obj(x, `${field}.bodies[${i}]`);
    str(o.body, `${field}.bodies[${i}].body`);
    if (int(o.index, `${field}.bodies[${i}].index`) >= n) throw new ProtocolError(`${field}.bodies[${i}].index`, `must be < ${n}`);
  });
  if (c.divergence === null) return;
  const d = obj(c.divergence, `${field}.divergence`);
  if (int(d.index, `${field}.divergence.index`) >= n) throw new ProtocolError(`${field}.divergence.index`, `must be < ${n}`);
  if (!DIVERGENCE_KINDS.includes(d.kind as never)) throw new ProtocolError(`${field}.divergence.kind`, `must be one of ${DIVERGENCE_KINDS.join(', ')}`);
  str(d.field, `${field}.divergence.field`);
  arr(d.lines, `${field}.divergence.lines`).forEach((x, i) => str(x, `${field}.divergence.lines[${i}]`));
  arr(d.bodies, `${field}.divergence.bodies`);
  arr(d.contacts, `${field}.divergence.contacts`);
}

/** FrameView.compare: one entry per contact of the frame, b's poses as a ghost. */
export function validateFrameCompare(v: unknown, contacts: number, field = 'view.compare'): void {
  const c = obj(v, field);
  if (c.b !== null) int(obj(c.b, `${field}.b`).index, `${field}.b.index`);
  arr(c.contacts, `${field}.contacts`, contacts).forEach((x, i) => {
    const o = obj(x, `${field}.contacts[${i}]`);
    if (o.b !== null) int(o.b, `${field}.contacts[${i}].b`);
    for (const k of ['lambdaN', 'lambdaT', 'depth']) numOrNull(o[k], `${field}.contacts[${i}].${k}`);
  });
  arr(c.onlyB, `${field}.onlyB`);
  if (c.ghost !== undefined && !(c.ghost instanceof Float64Array && c.ghost.length % POSE_STRIDE === 0))
    throw new ProtocolError(`${field}.ghost`, `must be a Float64Array of ${POSE_STRIDE} numbers per body`);
}

export function validateCrossWhatIf(v: unknown, field = 'result'): void {
  const o = obj(v, field);
  int(o.index, `${field}.index`);
  if (o.direction !== 'b-with-a' && o.direction !== 'a-with-b') throw new ProtocolError(`${field}.direction`, 'must be "b-with-a" or "a-with-b"');
  str(o.title, `${field}.title`);
  const n = arr(obj(o.view, `${field}.view`).contacts, `${field}.view.contacts`).length;
  numOrNullArray(o.otherN, `${field}.otherN`, n);
  numOrNullArray(o.otherT, `${field}.otherT`, n);
}

export function validateEnginesView(v: unknown, field = 'engines'): void {
  const o = obj(v, field);
  str(o.scenario, `${field}.scenario`);
  arr(o.rows, `${field}.rows`).forEach((r, i) => {
    const x = obj(r, `${field}.rows[${i}]`);
    str(x.engine, `${field}.rows[${i}].engine`);
    str(x.title, `${field}.rows[${i}].title`);
    if (!['ok', 'unavailable', 'failed'].includes(x.status as string))
      throw new ProtocolError(`${field}.rows[${i}].status`, 'must be ok, unavailable or failed');
    for (const k of ['energyDrift', 'injected', 'maxPenetration', 'jitter', 'coneViolations', 'iterationsMean', 'iterationsMax', 'stepMs'])
      numOrNull(x[k], `${field}.rows[${i}].${k}`);
    if (typeof x.comparable !== 'boolean') throw new ProtocolError(`${field}.rows[${i}].comparable`, 'must be a boolean');
  });
}
