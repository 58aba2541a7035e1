/**
 * A contact's state for the inspector — open, stick or slip — decided from the physics of the step: the
 * contact's relative velocity after the impulse, w = ġ⁺ = (w_n, w_t1, w_t2) (DESIGN.md: w = Aλ − b + … is the
 * post-step gap rate; ġ_n > 0 separates), not from a solver's label. Signorini–Coulomb (docs/physics.md):
 *   open   the gap opens: w_n is above what the declared stabilisation allows (the ERP/Baumgarte bias
 *          velocity of b_n, which pushes a resting contact out on purpose) by more than OPEN_SPEED_TOLERANCE,
 *          or no normal impulse acts (λn ≈ 0);
 *   slip   closed and ‖w_t‖ > SLIP_SPEED_TOLERANCE;
 *   stick  closed and ‖w_t‖ ≤ SLIP_SPEED_TOLERANCE.
 * A contact that leaves at 7 m/s is open whatever λ says. Without kinematics (a recording frame with no
 * pre-solve state) only λ is known: open when λn ≈ 0, slip on the friction-cone surface, else stick.
 */
import type { ContactState } from '../../protocol/inspector.js';

/** Normal speed (m/s) above the stabilisation's that counts as an opening gap: 1 mm/s. */
export const OPEN_SPEED_TOLERANCE = 1e-3;
/** Tangential speed (m/s) above which a closed contact slips: 1 mm/s. */
export const SLIP_SPEED_TOLERANCE = 1e-3;
/** λn at or below this counts as no impulse (N·s). */
export const ZERO_IMPULSE = 1e-12;
/** Without kinematics: sliding when ‖λt‖ ≥ (1 − this)·μλn (on the friction-cone surface). */
export const CONE_SURFACE_SLACK = 1e-6;

export interface PostStepVelocity {
  /** w_n = ġn⁺ (m/s, > 0 separating). */
  readonly normal: number;
  /** ‖(w_t1, w_t2)‖ (m/s). */
  readonly slip: number;
  /** The stabilisation's part of b_n (m/s; ERP/Baumgarte bias, 0 or null when none is declared). */
  readonly bias: number | null;
}

export function contactState(lambdaN: number, lambdaT: number, mu: number, w: PostStepVelocity | null): ContactState {
  if (w && Number.isFinite(w.normal) && Number.isFinite(w.slip)) {
    const allowed = Math.max(0, w.bias ?? 0) + OPEN_SPEED_TOLERANCE;
    if (w.normal > allowed || !(lambdaN > ZERO_IMPULSE)) return 'open';
    return w.slip > SLIP_SPEED_TOLERANCE ? 'slip' : 'stick';
  }
  if (!(lambdaN > ZERO_IMPULSE)) return 'open';
  return mu > 0 && lambdaT >= (1 - CONE_SURFACE_SLACK) * mu * lambdaN ? 'slip' : 'stick';
}
