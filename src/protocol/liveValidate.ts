/** Checks the live messages (./live.ts) on receipt, as ./validate.ts does for the others (ProtocolError names the field). */
import { ProtocolError } from './protocolError.js';
import { arr, numOrNullArray, obj, safeInt, str, type Obj } from './fieldChecks.js';
import { type BreakSettings, type LiveAction, MAX_LIVE_ROWS } from './live.js';

const SEVERITIES = ['off', 'error', 'warning', 'info'];
const MECHANISM = /^[a-z][a-z-]{0,63}$/;

export function validateBreakSettings(v: unknown, field: string): BreakSettings {
  const o = obj(v, field);
  if (!SEVERITIES.includes(o.severity as string)) throw new ProtocolError(`${field}.severity`, `must be one of ${SEVERITIES.join(', ')}`);
  if (o.mechanism !== null && !MECHANISM.test(str(o.mechanism, `${field}.mechanism`)))
    throw new ProtocolError(`${field}.mechanism`, 'must be a mechanism name or null');
  if (o.frame !== null) safeInt(o.frame, `${field}.frame`);
  return o as unknown as BreakSettings;
}

/** A webview's live action. */
export function validateLiveAction(v: unknown): LiveAction {
  const a = obj(v, 'action');
  switch (a.action) {
    case 'pause':
    case 'step':
    case 'continue':
      break;
    case 'breakOn':
      validateBreakSettings(a.breakOn, 'action.breakOn');
      break;
    default:
      throw new ProtocolError('action.action', 'must be pause, step, continue or breakOn');
  }
  return a as unknown as LiveAction;
}

/** A host's live update: its rows are columns of equal length, its state an object. */
export function validateLiveUpdate(m: Obj): void {
  if (m.rows !== undefined) {
    const r = obj(m.rows, 'rows');
    safeInt(r.from, 'rows.from');
    const n = arr(r.frame, 'rows.frame').length;
    if (n > MAX_LIVE_ROWS) throw new ProtocolError('rows.frame', `must have at most ${MAX_LIVE_ROWS} entries`);
    for (const k of ['frame', 'time', 'contacts', 'iterations', 'residual', 'kinetic', 'potential', 'total', 'kappa', 'kappaRange', 'maxDepth'])
      numOrNullArray(r[k], `rows.${k}`, n);
    arr(r.status, 'rows.status', n).forEach((s, i) => str(s, `rows.status[${i}]`));
    for (const g of ['ledger', 'injection']) for (const [k, col] of Object.entries(obj(r[g], `rows.${g}`))) numOrNullArray(col, `rows.${g}.${k}`, n);
  }
  if (m.diagnosed !== undefined) {
    const d = obj(m.diagnosed, 'diagnosed');
    safeInt(d.from, 'diagnosed.from');
    const n = arr(d.kappa, 'diagnosed.kappa').length;
    numOrNullArray(d.kappa, 'diagnosed.kappa', n);
    numOrNullArray(d.kappaRange, 'diagnosed.kappaRange', n);
    for (const [k, col] of Object.entries(obj(d.injection, 'diagnosed.injection'))) numOrNullArray(col, `diagnosed.injection.${k}`, n);
  }
  arr(m.findings, 'findings').forEach((f, i) => {
    const o = obj(f, `findings[${i}]`);
    safeInt(o.index, `findings[${i}].index`);
    str(o.mechanism, `findings[${i}].mechanism`);
  });
  arr(m.errors, 'errors').forEach((e, i) => str(e, `errors[${i}]`));
  const s = obj(m.state, 'state');
  if (s.mode !== 'listening' && s.mode !== 'following') throw new ProtocolError('state.mode', 'must be listening or following');
  str(s.stream, 'state.stream');
  safeInt(s.frames, 'state.frames');
  if (s.diagnosed !== undefined) safeInt(s.diagnosed, 'state.diagnosed');
  validateBreakSettings(s.breakOn, 'state.breakOn');
  if (s.paused !== null) {
    const p = obj(s.paused, 'state.paused');
    safeInt(p.index, 'state.paused.index');
    safeInt(p.frame, 'state.paused.frame');
    str(p.reason, 'state.paused.reason');
  }
  if (m.mechanisms !== undefined) arr(m.mechanisms, 'mechanisms').forEach((x, i) => str(x, `mechanisms[${i}]`));
}
