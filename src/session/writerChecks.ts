/**
 * Checks an engine author runs on a recording their writer produced (`contact-lens report --check`;
 * docs/engine-authors.md): does the file say what the engine did? Each check is ok, failed, or not checked
 * (with what to write so that it can be), streaming, one frame at a time.
 *   readable          every line parses (a skipped line is lost data);
 *   solver declarations  header solver.kind declared and known (iterative-fixed, iterative-tolerance, direct),
 *                     solver.lambdaSource well formed;
 *   velocity change   Δv = M⁻¹Jᵀλ per body on frames with `pre` (consistency.ts: names the likely bug —
 *                     λ as a force, flipped normal, inverse inertia, ω in body coordinates);
 *   recorded energy   the file's energy.kinetic equals ½mv² + ½ωᵀIω from its own states and header, or its
 *                     total changes as ours does (a potential with another zero level is fine);
 *   scales            gravity, time step and penetration depths plausible for SI units.
 */
import type { RecordedFrame, RecordingHeader } from '../format/recording.js';
import { frameEnergyParts, type Diagnoser } from './diagnose.js';
import { lambdaSource, lambdaSourceProblem, SOLVER_KINDS, solverKind } from './solverDeclarations.js';
import { formatCount, formatNumber } from '../engine/index.js';

export type CheckOutcome = 'ok' | 'failed' | 'not checked';

export interface WriterCheck {
  readonly name: 'readable' | 'solver declarations' | 'velocity change' | 'recorded energy' | 'scales';
  readonly outcome: CheckOutcome;
  readonly detail: string;
}

/** Relative mismatch of the recorded kinetic energy (or of ΔE) tolerated: float32 writers stay far below. */
export const ENERGY_RELATIVE = 1e-3;
/** Gravity magnitudes that look like SI on Earth-like scenes (m/s²); 0 (no gravity) is fine too. */
export const SI_GRAVITY = [9.5, 10.1] as const;
/** Time steps a rigid-body engine plausibly takes (s). */
export const DT_RANGE = [1e-5, 0.1] as const;
/** A contact deeper than this fraction of the smaller body's size suggests another length unit (or a tunnelling body). */
export const DEPTH_FRACTION = 0.5;

/** Half the smallest extent of a body's shape (m), or null for planes and unknown shapes. */
function bodySize(h: RecordingHeader, i: number): number | null {
  if (i < 0) return null;
  const s = h.bodies[i].shape;
  if ('sphere' in s) return s.sphere.radius;
  if ('box' in s) return Math.min(...s.box.halfExtents);
  return null;
}

export class WriterChecks {
  private kineticFrames = 0;
  private energyFirstBad: { frame: number; recorded: number; ours: number; what: string } | null = null;
  private prev: { recordedTotal?: number; ours: number } | null = null;
  private deepest: { frame: number; contact: number; depth: number; size: number } | null = null;

  constructor(private readonly header: RecordingHeader) {}

  add(f: RecordedFrame): void {
    const { kinetic, total } = frameEnergyParts(this.header, f);
    const e = f.energy;
    const rel = (a: number, b: number, scale: number): boolean => Math.abs(a - b) > ENERGY_RELATIVE * Math.max(1e-9, Math.abs(scale));
    if (e && Number.isFinite(e.kinetic) && Number.isFinite(kinetic)) {
      this.kineticFrames++;
      if (!this.energyFirstBad && rel(e.kinetic, kinetic, Math.max(kinetic, e.kinetic)))
        this.energyFirstBad = { frame: f.frame, recorded: e.kinetic, ours: kinetic, what: 'energy.kinetic' };
    } else if (e && Number.isFinite(e.total) && this.prev?.recordedTotal !== undefined) {
      // a total with another potential zero: compare changes
      this.kineticFrames++;
      const dRec = e.total - this.prev.recordedTotal,
        dOurs = total - this.prev.ours;
      if (!this.energyFirstBad && rel(dRec, dOurs, Math.max(Math.abs(total), 1e-6)))
        this.energyFirstBad = { frame: f.frame, recorded: dRec, ours: dOurs, what: 'the change of energy.total' };
    }
    this.prev = { recordedTotal: e && Number.isFinite(e.total) ? e.total : undefined, ours: total };
    f.contacts.forEach((c, k) => {
      const sizes = [bodySize(this.header, c.a), bodySize(this.header, c.b)].filter((x): x is number => x !== null);
      if (!sizes.length) return;
      const size = Math.min(...sizes);
      if (c.depth > DEPTH_FRACTION * size && (!this.deepest || c.depth / size > this.deepest.depth / this.deepest.size))
        this.deepest = { frame: f.frame, contact: k, depth: c.depth, size };
    });
  }

  /** The outcomes, given the reader's counts and the diagnosis that saw the same frames (for Δv = M⁻¹Jᵀλ). */
  results(skippedLines: number, frames: number, diagnosis: Diagnoser): WriterCheck[] {
    const out: WriterCheck[] = [];
    out.push(
      skippedLines === 0
        ? { name: 'readable', outcome: 'ok', detail: `${formatCount(frames, 'frame')}, every line read` }
        : { name: 'readable', outcome: 'failed', detail: `${formatCount(skippedLines, 'line')} could not be read (listed above); their frames are lost` },
    );
    const kind = this.header.solver?.kind;
    const lsProblem = lambdaSourceProblem(this.header);
    const ls = lambdaSource(this.header);
    const origin = (o: string): string =>
      o === 'solver' ? "from the engine's solver" : o === 'fitted' ? 'fitted by the writer' : 'unavailable (not recorded)';
    const lsText = `λ: normal ${origin(ls.normal)}, tangential ${origin(ls.tangent)}`;
    out.push(
      lsProblem
        ? { name: 'solver declarations', outcome: 'failed', detail: lsProblem }
        : kind === undefined
          ? {
              name: 'solver declarations',
              outcome: 'not checked',
              detail: `header solver.kind not declared: say ${SOLVER_KINDS.map((k) => `"${k}"`).join(', ')} so that a frame's status means what it says; ${lsText}`,
            }
          : solverKind(this.header)
            ? { name: 'solver declarations', outcome: 'ok', detail: `kind ${kind}; ${lsText}` }
            : {
                name: 'solver declarations',
                outcome: 'failed',
                detail: `header solver.kind is ${JSON.stringify(kind)}; expected one of ${SOLVER_KINDS.join(', ')}`,
              },
    );
    const c = diagnosis.consistency;
    const checked = diagnosis.checkedFrames;
    out.push(
      diagnosis.tangentUnavailable
        ? {
            name: 'velocity change',
            outcome: 'not checked',
            detail: `header solver.lambdaSource says the ${ls.normal === 'unavailable' ? 'normal' : 'tangential'} impulses are not recorded: Δv = M⁻¹Jᵀλ cannot hold without them`,
          }
        : checked === 0
          ? {
              name: 'velocity change',
              outcome: 'not checked',
              detail: 'no frame has `pre` (the velocities the solver started from): write it to check Δv = M⁻¹Jᵀλ per body (docs/recording-format.md)',
            }
          : c
            ? {
                name: 'velocity change',
                outcome: 'failed',
                detail: `${c.frames} of ${formatCount(checked, 'frame')} fail Δv = M⁻¹Jᵀλ, first frame ${c.firstFrame}, body ${c.body}: ${c.text}`,
              }
            : { name: 'velocity change', outcome: 'ok', detail: `Δv = M⁻¹Jᵀλ holds for every body in ${formatCount(checked, 'frame')} with \`pre\`` },
    );
    const b = this.energyFirstBad;
    out.push(
      this.kineticFrames === 0
        ? { name: 'recorded energy', outcome: 'not checked', detail: 'no frame writes energy.kinetic or energy.total (optional)' }
        : b
          ? {
              name: 'recorded energy',
              outcome: 'failed',
              detail: `frame ${b.frame}: ${b.what} is ${formatNumber(b.recorded, 6)} J, the states and the header's masses and inertias give ${formatNumber(b.ours, 6)} J — check the inertia (body frame, not inverse), ω (world frame) and the mass units`,
            }
          : { name: 'recorded energy', outcome: 'ok', detail: `agrees with the states to ${ENERGY_RELATIVE} in ${formatCount(this.kineticFrames, 'frame')}` },
    );
    const h = this.header;
    const g = Math.hypot(...h.gravity);
    const scales: string[] = [];
    if (g !== 0 && (g < SI_GRAVITY[0] || g > SI_GRAVITY[1]))
      scales.push(`|gravity| = ${formatNumber(g, 4)} m/s² (Earth: 9.81; is the length unit centimetres or the engine's own?)`);
    if (!(h.dt >= DT_RANGE[0] && h.dt <= DT_RANGE[1]))
      scales.push(`dt = ${h.dt} s is outside ${DT_RANGE[0]}…${DT_RANGE[1]} s (milliseconds written as seconds?)`);
    const d = this.deepest;
    if (d)
      scales.push(
        `frame ${d.frame}, contact ${d.contact}: depth ${formatNumber(d.depth)} m is ${formatNumber(d.depth / d.size)}× the smaller body's half size (${formatNumber(d.size)} m): a length unit other than metres, or a body tunnelling`,
      );
    out.push(
      scales.length
        ? { name: 'scales', outcome: 'failed', detail: scales.join('; ') }
        : {
            name: 'scales',
            outcome: 'ok',
            detail: `gravity ${formatNumber(g)} m/s², dt ${formatNumber(h.dt)} s, depths below ${DEPTH_FRACTION} of body sizes`,
          },
    );
    return out;
  }
}
