/**
 * Checks a received message against the protocol (./inspector.ts) before anything acts on it; both sides
 * call these. A bad message throws ProtocolError naming the field. Pure functions, no imports with behaviour.
 */
import type { HostMessage, WebviewMessage, WhatIfOptions } from './inspector.js';
import { FINDING_HEADLINE_MAX, MAX_SOLVER_ITERATIONS, PROTOCOL_VERSION, SOLVER_NAMES } from './inspector.js';
import { POSE_STRIDE } from './scene.js';
import { ProtocolError } from './protocolError.js';
import { validateCompareView, validateCrossWhatIf, validateEnginesView, validateFrameCompare } from './validateCompare.js';
import { validateLiveAction, validateLiveUpdate } from './liveValidate.js';
import { arr, finite, int, numOrNull, numOrNullArray, obj, str } from './fieldChecks.js';

export { ProtocolError };

function whatIfOptions(v: unknown, field: string): WhatIfOptions {
  const o = obj(v, field);
  if (!SOLVER_NAMES.includes(o.solver as never)) throw new ProtocolError(`${field}.solver`, `must be one of ${SOLVER_NAMES.join(', ')}`);
  if (o.maxIterations !== undefined && int(o.maxIterations, `${field}.maxIterations`, 1) > MAX_SOLVER_ITERATIONS)
    throw new ProtocolError(`${field}.maxIterations`, `must be ≤ ${MAX_SOLVER_ITERATIONS}`);
  if (o.tolerance !== undefined && !(finite(o.tolerance, `${field}.tolerance`) > 0)) throw new ProtocolError(`${field}.tolerance`, 'must be > 0');
  if (o.warmStart !== undefined && typeof o.warmStart !== 'boolean') throw new ProtocolError(`${field}.warmStart`, 'must be a boolean');
  return o as unknown as WhatIfOptions;
}

/** Validates a message the webview sent (the host calls this). */
export function validateWebviewMessage(v: unknown): WebviewMessage {
  const m = obj(v, 'message');
  switch (m.type) {
    case 'ready':
      break;
    case 'seek':
      int(m.requestId, 'requestId');
      int(m.index, 'index');
      break;
    case 'series': {
      int(m.requestId, 'requestId');
      arr(m.keys, 'keys').forEach((k, i) => str(k, `keys[${i}]`));
      break;
    }
    case 'whatIf':
      int(m.requestId, 'requestId');
      int(m.index, 'index');
      whatIfOptions(m.options, 'options');
      break;
    case 'exportChart':
      str(m.name, 'name');
      if (!/^data:image\/png;base64,[A-Za-z0-9+/=]+$/.test(str(m.dataUrl, 'dataUrl'))) throw new ProtocolError('dataUrl', 'must be a base64 PNG data URL');
      break;
    case 'exportFrame':
      int(m.index, 'index');
      if (m.format !== 'json' && m.format !== 'csv') throw new ProtocolError('format', 'must be "json" or "csv"');
      break;
    case 'crossWhatIf':
      int(m.requestId, 'requestId');
      int(m.index, 'index');
      if (m.direction !== 'b-with-a' && m.direction !== 'a-with-b') throw new ProtocolError('direction', 'must be "b-with-a" or "a-with-b"');
      break;
    case 'compareEngine':
      if (!/^[a-z]{2,16}$/.test(str(m.engine, 'engine'))) throw new ProtocolError('engine', 'must be an engine name');
      break;
    case 'live':
      validateLiveAction(m.action);
      break;
    default:
      throw new ProtocolError('type', `unknown message type ${JSON.stringify(m.type)}`);
  }
  return m as unknown as WebviewMessage;
}

/** An island: its heat map, when sent, has size² levels in a Uint8Array. */
function island(v: unknown, field: string): void {
  const o = obj(v, field);
  const size = int(o.size, `${field}.size`);
  arr(o.contacts, `${field}.contacts`);
  if (o.heat === null) return;
  const h = obj(o.heat, `${field}.heat`);
  if (!(h.levels instanceof Uint8Array)) throw new ProtocolError(`${field}.heat.levels`, 'must be a Uint8Array');
  if (h.levels.length !== size * size) throw new ProtocolError(`${field}.heat.levels`, `must have size² = ${size * size} entries, has ${h.levels.length}`);
  // maxAbs is over the finite entries only (heatMap.ts counts the others in nonFinite)
  if (!(finite(h.maxAbs, `${field}.heat.maxAbs`) >= 0)) throw new ProtocolError(`${field}.heat.maxAbs`, 'must be ≥ 0');
  int(h.nonFinite, `${field}.heat.nonFinite`);
}

/** A problem file's view (./problem.ts): sizes, A, one table row per contact, per-contact arrays of each solver. */
function problemView(v: unknown): void {
  const o = obj(v, 'view');
  str(o.file, 'view.file');
  str(o.title, 'view.title');
  const C = int(o.contacts, 'view.contacts');
  const n = int(o.unknowns, 'view.unknowns');
  if (n !== 3 * C) throw new ProtocolError('view.unknowns', `must be 3 × contacts = ${3 * C}`);
  int(o.rank, 'view.rank');
  numOrNull(o.rankRatio, 'view.rankRatio');
  numOrNull(o.asymmetry, 'view.asymmetry');
  numOrNull(o.eigenRatio, 'view.eigenRatio');
  island(o.matrix, 'view.matrix');
  const rows = arr(o.table, 'view.table');
  if (rows.length !== C) throw new ProtocolError('view.table', `must have ${C} rows, has ${rows.length}`);
  rows.forEach((r, i) => {
    const x = obj(r, `view.table[${i}]`);
    for (const k of ['mu', 'bN', 'bT']) numOrNull(x[k], `view.table[${i}].${k}`);
  });
  arr(o.solvers, 'view.solvers').forEach((s, i) => {
    const x = obj(s, `view.solvers[${i}]`);
    if (!SOLVER_NAMES.includes(x.solver as never)) throw new ProtocolError(`view.solvers[${i}].solver`, `must be one of ${SOLVER_NAMES.join(', ')}`);
    str(x.status, `view.solvers[${i}].status`);
    int(x.iterations, `view.solvers[${i}].iterations`);
    for (const k of ['kkt', 'coulomb', 'objective', 'timeMs']) numOrNull(x[k], `view.solvers[${i}].${k}`);
    for (const k of ['lambdaN', 'lambdaT', 'wN']) numOrNullArray(x[k], `view.solvers[${i}].${k}`, C);
    if (x.matrixNote !== undefined) str(x.matrixNote, `view.solvers[${i}].matrixNote`);
  });
  arr(o.notes, 'view.notes');
}

const SHAPE_KINDS = ['sphere', 'box', 'plane', 'other'];
/** The scene view's bodies (./scene.ts): a name, a static flag and a shape kind each. */
function sceneInfo(v: unknown): void {
  arr(obj(v, 'scene').bodies, 'scene.bodies').forEach((b, i) => {
    const o = obj(b, `scene.bodies[${i}]`);
    str(o.name, `scene.bodies[${i}].name`);
    if (typeof o.static !== 'boolean') throw new ProtocolError(`scene.bodies[${i}].static`, 'must be a boolean');
    const s = obj(o.shape, `scene.bodies[${i}].shape`);
    if (!SHAPE_KINDS.includes(s.kind as string)) throw new ProtocolError(`scene.bodies[${i}].shape.kind`, `must be one of ${SHAPE_KINDS.join(', ')}`);
  });
}
/** A frame's body poses (POSE_STRIDE numbers per body) and friction impulses (3 per contact), as Float64Arrays. */
function sceneFrame(v: unknown, contacts: number): void {
  const o = obj(v, 'view.scene');
  const p = o.poses,
    fr = o.friction;
  if (!(p instanceof Float64Array)) throw new ProtocolError('view.scene.poses', 'must be a Float64Array');
  if (p.length % POSE_STRIDE !== 0) throw new ProtocolError('view.scene.poses', `must have ${POSE_STRIDE} numbers per body, has ${p.length}`);
  if (!(fr instanceof Float64Array)) throw new ProtocolError('view.scene.friction', 'must be a Float64Array');
  if (fr.length !== 3 * contacts) throw new ProtocolError('view.scene.friction', `must have 3 numbers per contact (${3 * contacts}), has ${fr.length}`);
  const pre = o.prePoses;
  if (pre !== undefined && !(pre instanceof Float64Array && pre.length === p.length))
    throw new ProtocolError('view.scene.prePoses', `must be a Float64Array like poses (${p.length} numbers)`);
}

function validateTimeline(v: unknown, n: number): void {
  const t = obj(v, 'timeline');
  for (const k of ['frame', 'time', 'contacts', 'iterations', 'residual', 'kinetic', 'potential', 'total', 'kappa', 'maxDepth'])
    numOrNullArray(t[k], `timeline.${k}`, n);
  if (t.kappaRange !== undefined) numOrNullArray(t.kappaRange, 'timeline.kappaRange', n);
  const s = arr(t.status, 'timeline.status');
  if (s.length !== n) throw new ProtocolError('timeline.status', `must have ${n} entries`);
  const ledger = obj(t.ledger, 'timeline.ledger');
  for (const k of Object.keys(ledger)) numOrNullArray(ledger[k], `timeline.ledger.${k}`, n);
  if (t.injection !== undefined) {
    const inj = obj(t.injection, 'timeline.injection');
    for (const k of Object.keys(inj)) numOrNullArray(inj[k], `timeline.injection.${k}`, n);
  }
}

/** Validates a message the host sent (the webview calls this). */
export function validateHostMessage(v: unknown): HostMessage {
  const m = obj(v, 'message');
  switch (m.type) {
    case 'init': {
      if (m.version !== PROTOCOL_VERSION) throw new ProtocolError('version', `must be ${PROTOCOL_VERSION} (host and webview bundles differ)`);
      const info = obj(m.info, 'info');
      const n = int(info.frameCount, 'info.frameCount');
      str(info.title, 'info.title');
      arr(info.bodies, 'info.bodies');
      validateTimeline(m.timeline, n);
      arr(m.findings, 'findings').forEach((f, i) => {
        const o = obj(f, `findings[${i}]`);
        const idx = int(o.index, `findings[${i}].index`);
        if (idx >= n) throw new ProtocolError(`findings[${i}].index`, `must be < frameCount ${n}`);
        numOrNull(o.joules, `findings[${i}].joules`);
        str(o.mechanism, `findings[${i}].mechanism`);
        if (o.headline !== undefined) {
          const h = str(o.headline, `findings[${i}].headline`);
          if (h.length > FINDING_HEADLINE_MAX || /[\r\n]/.test(h))
            throw new ProtocolError(`findings[${i}].headline`, `must be one line of at most ${FINDING_HEADLINE_MAX} characters, has ${h.length}`);
        }
        if (o.evidence !== undefined) arr(o.evidence, `findings[${i}].evidence`).forEach((e, k) => str(e, `findings[${i}].evidence[${k}]`));
      });
      finite(obj(m.settings, 'settings').playbackFps, 'settings.playbackFps');
      int(m.index, 'index');
      if (m.play !== undefined && typeof m.play !== 'boolean') throw new ProtocolError('play', 'must be a boolean');
      if (m.scene !== undefined) sceneInfo(m.scene);
      break;
    }
    case 'frame': {
      int(m.requestId, 'requestId');
      const f = obj(m.view, 'view');
      int(f.index, 'view.index');
      arr(f.contacts, 'view.contacts').forEach((c, i) => {
        const o = obj(c, `view.contacts[${i}]`);
        numOrNull(o.lambdaN, `view.contacts[${i}].lambdaN`);
        str(o.key, `view.contacts[${i}].key`);
      });
      arr(f.islands, 'view.islands').forEach((v, i) => island(v, `view.islands[${i}]`));
      numOrNullArray(f.residuals, 'view.residuals');
      if (f.scene !== undefined) sceneFrame(f.scene, (f.contacts as unknown[]).length);
      if (f.compare !== undefined) validateFrameCompare(f.compare, (f.contacts as unknown[]).length);
      break;
    }
    case 'conditioning':
      int(m.index, 'index');
      arr(m.islands, 'islands').forEach((v, i) => {
        const o = obj(v, `islands[${i}]`);
        int(o.island, `islands[${i}].island`);
        for (const k of ['kappa', 'lambdaMin', 'lambdaMax', 'rankDeficiency']) numOrNull(o[k], `islands[${i}].${k}`);
        arr(o.causes, `islands[${i}].causes`).forEach((c, k) => str(c, `islands[${i}].causes[${k}]`));
      });
      break;
    case 'compare':
      validateCompareView(m.compare, 'compare');
      break;
    case 'crossWhatIf':
      int(m.requestId, 'requestId');
      validateCrossWhatIf(m.result);
      break;
    case 'engines':
      validateEnginesView(m.engines);
      break;
    case 'series':
      int(m.requestId, 'requestId');
      arr(m.series, 'series');
      break;
    case 'whatIf':
      int(m.requestId, 'requestId');
      arr(obj(m.result, 'result').contacts, 'result.contacts');
      break;
    case 'command':
      str(obj(m.command, 'command').name, 'command.name');
      break;
    case 'progress':
      str(m.message, 'message');
      break;
    case 'error':
      str(m.message, 'message');
      break;
    case 'problem':
      if (m.version !== PROTOCOL_VERSION) throw new ProtocolError('version', `must be ${PROTOCOL_VERSION} (host and webview bundles differ)`);
      problemView(m.view);
      break;
    case 'problemError':
      str(m.file, 'file');
      str(m.message, 'message');
      break;
    case 'live':
      validateLiveUpdate(m);
      break;
    default:
      throw new ProtocolError('type', `unknown message type ${JSON.stringify(m.type)}`);
  }
  return m as unknown as HostMessage;
}
