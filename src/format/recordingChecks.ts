/**
 * Recording format, validation: the checks the header's and the frames' validation share (unknown keys,
 * magnitude bounds, kinetic-energy overflow, displayed names, soft-contact parameters), on the shared field reader (fieldReader.ts).
 */
import { hasUnsafeCharacters, safeText, suggest } from './messages.js';
import { fieldPath, unknownKeys, type ValueReader, type FieldWarning, type JsonRecord, type UnitTolerances } from './fieldReader.js';
import { QUATERNION_ERROR_TOLERANCE, UNIT_TOLERANCE, type RecordedBody, type RecordedPreState, type SoftContactParameters } from './recordingTypes.js';
import type { Vec3 } from '../engine/index.js';

/** Unknown keys: a warning (with a spelling suggestion); keys starting with "x-" are vendor extensions, silently ignored. */
export function warnUnknownKeys(o: JsonRecord, allowed: readonly string[], path: string, warn: FieldWarning | undefined): void {
  if (!warn) return;
  for (const k of unknownKeys(Object.keys(o), allowed, true)) {
    const near = suggest(k, allowed);
    warn(fieldPath(path, k), `unknown field, ignored${near ? ` (did you mean "${near}"?)` : ''}; vendor extensions start with "x-"`);
  }
}

/** The tolerances of unit vectors and quaternions in recordings. */
export const TOLERANCES: UnitTolerances = { unit: UNIT_TOLERANCE, quaternionError: QUATERNION_ERROR_TOLERANCE };

/**
 * Largest |coordinate| (m) of a body position or contact point and largest |impulse| (N·s, N·m·s) a frame
 * may hold. The velocity check and the energy ledger multiply up to two of them with a velocity (r × n · λ · ω);
 * beyond this bound those products overflow (a manifold λ of 1e300 gave a finding of +∞ J). 1e50 m is far
 * beyond any scene, and a velocity that makes the products overflow is a blow-up, reported as such.
 */
export const MAX_RECORDED_MAGNITUDE = 1e50;

/** The numbers, each within ±MAX_RECORDED_MAGNITUDE, or one error naming the first one beyond. */
export function bounded<T extends readonly number[]>(c: ValueReader, xs: T, field: string, unit: string): T {
  for (let k = 0; k < xs.length; k++) {
    if (!(Math.abs(xs[k]) <= MAX_RECORDED_MAGNITUDE))
      c.fail(
        `${field}[${k}]`,
        `is ${xs[k]} ${unit}, beyond ±${MAX_RECORDED_MAGNITUDE}: positions and impulses are bounded so that the energy ledger's products stay finite (docs/recording-format.md "Numbers")`,
      );
  }
  return xs;
}

export const inBounds = (v: readonly number[]): boolean =>
  Math.abs(v[0]) <= MAX_RECORDED_MAGNITUDE && Math.abs(v[1]) <= MAX_RECORDED_MAGNITUDE && Math.abs(v[2]) <= MAX_RECORDED_MAGNITUDE;

/** True when ½k|v|² overflows (k a mass or a moment of inertia; a static body's null never does). */
export const kineticOverflows = (v: readonly number[], k: number | null): boolean =>
  k !== null && k > 0 && !Number.isFinite((k * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])) / 2);

/** Largest principal moment of a body's inertia (3 moments or a 3×3 tensor's diagonal), or null. */
export function largestMoment(inertia: RecordedBody['inertia']): number | null {
  if (inertia === null) return null;
  return inertia.length === 3 ? Math.max(inertia[0], inertia[1], inertia[2]) : Math.max(inertia[0], inertia[4], inertia[8]);
}

/**
 * A pre-solve velocity whose kinetic energy overflows (a finite state after it is no blow-up the diagnosis can
 * name, and its ledger would hold ±∞): one error naming the field.
 */
export function checkPreEnergy(c: ValueReader, s: RecordedPreState, body: RecordedBody, f: string): void {
  const what = (field: string) =>
    c.fail(field, `is so large that the body's kinetic energy before the solve is not a finite number, while its state after the solve is finite`);
  if (kineticOverflows(s.v, body.mass)) what(`${f}.v`);
  if (kineticOverflows(s.w, largestMoment(body.inertia))) what(`${f}.w`);
}

export const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/**
 * A name that is only shown (producer, body): control characters (ANSI escapes, line breaks) are kept
 * visible as escapes (\u001b, \n) with a warning, so that printing it cannot rewrite a terminal.
 */
export function label(s: string, field: string, warn: FieldWarning): string {
  if (!hasUnsafeCharacters(s)) return s;
  warn(field, 'contains control characters; shown escaped');
  return safeText(s, s.length);
}

export const SOFT_KEYS = ['k', 'c'];

/** Soft-contact parameters {k ≥ 0 (1/s²), c ≥ 0 (1/s)} per unit effective mass. */
export function readSoft(c: ValueReader, v: unknown, f: string, warn: FieldWarning | undefined): SoftContactParameters {
  const o = c.obj(v, f);
  const k = c.num(o.k, `${f}.k`);
  if (!(k >= 0))
    c.fail(
      `${f}.k`,
      `is ${k}; the stiffness per unit effective mass must be ≥ 0 (1/s²; docs/recording-format.md "Soft contacts" maps each engine's parameters)`,
    );
  const d = c.num(o.c, `${f}.c`);
  if (!(d >= 0)) c.fail(`${f}.c`, `is ${d}; the damping per unit effective mass must be ≥ 0 (1/s)`);
  warnUnknownKeys(o, SOFT_KEYS, f, warn);
  return { k, c: d };
}
