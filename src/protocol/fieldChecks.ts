/**
 * The checks every protocol validator (./validate.ts, ./validateCompare.ts, ./liveValidate.ts) builds on: each
 * returns the value when it has the named shape and else throws ProtocolError naming the field.
 */
import { ProtocolError } from './protocolError.js';

export type Obj = Record<string, unknown>;

export function obj(v: unknown, field: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ProtocolError(field, 'must be an object');
  return v as Obj;
}
export function int(v: unknown, field: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new ProtocolError(field, `must be an integer ≥ ${min}`);
  return v;
}
/** An integer that a double holds exactly (live counters). */
export function safeInt(v: unknown, field: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw new ProtocolError(field, `must be an integer ≥ ${min}`);
  return v;
}
export function finite(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ProtocolError(field, 'must be a finite number');
  return v;
}
/**
 * A number that may be non-finite, or null (JSON, which carries webview messages, writes NaN and ±∞ as
 * null): a diverging run's values are data to show, never a reason to reject the session.
 */
export function numOrNull(v: unknown, field: string): void {
  if (v !== null && typeof v !== 'number') throw new ProtocolError(field, 'must be a number or null');
}
export function str(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new ProtocolError(field, 'must be a string');
  return v;
}
export function arr(v: unknown, field: string, length?: number): unknown[] {
  if (!Array.isArray(v)) throw new ProtocolError(field, 'must be an array');
  if (length !== undefined && v.length !== length) throw new ProtocolError(field, `must have ${length} entries, has ${v.length}`);
  return v;
}
export function numOrNullArray(v: unknown, field: string, length?: number): void {
  arr(v, field, length).forEach((x, i) => numOrNull(x, `${field}[${i}]`));
}
