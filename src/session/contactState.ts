/**
 * A contact's state for the inspector and the export — open, stick or slip — decided from the physics of the step: the
 * contact's relative velocity after the impulse, w = ġ⁺ = (w_n, w_t1, w_t2) (docs/physics.md "Contact model": w = Aλ − b + … is the
 * post-step gap rate; ġ_n > 0 separates), not from a solver's label. Signorini–Coulomb (docs/physics.md):
 *   open   the bodies part within the step: w_n·Δt exceeds the overlap the step started with (depth; a
 *          speculative contact's gap is a negative depth), by more than OPEN_SPEED_TOLERANCE·Δt — or no
 *          normal impulse acts (λn ≈ 0). An ERP/Baumgarte bias ((erp/Δt)·depth, erp ≤ 1) or a soft contact's
 *          spring pushes an overlap out more slowly than that: the contact stays closed;
 *   slip   closed and ‖w_t‖ > SLIP_SPEED_TOLERANCE;
 *   stick  closed and ‖w_t‖ ≤ SLIP_SPEED_TOLERANCE.
 * A contact that leaves at 7 m/s is open whatever λ says. Without kinematics (a recording frame with no
 * pre-solve state) only λ is known: open when λn ≈ 0, slip on the friction-cone surface, else stick.
 */
/** The state names (the inspector's protocol and the Parquet export use the same three words). */
export type ContactState = 'open' | 'stick' | 'slip';

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
  /** The overlap at the start of the step (m; < 0: a speculative contact's gap). */
  readonly depth: number;
  /** The step (s). */
  readonly dt: number;
}

export function contactState(lambdaN: number, lambdaT: number, mu: number, w: PostStepVelocity | null): ContactState {
  if (w && Number.isFinite(w.normal) && Number.isFinite(w.slip) && w.dt > 0) {
    // the speed that just closes the overlap within the step, plus the tolerance
    const parting = (Number.isFinite(w.depth) ? w.depth : 0) / w.dt + OPEN_SPEED_TOLERANCE;
    if (w.normal > parting || !(lambdaN > ZERO_IMPULSE)) return 'open';
    return w.slip > SLIP_SPEED_TOLERANCE ? 'slip' : 'stick';
  }
  if (!(lambdaN > ZERO_IMPULSE)) return 'open';
  return mu > 0 && lambdaT >= (1 - CONE_SURFACE_SLACK) * mu * lambdaN ? 'slip' : 'stick';
}
