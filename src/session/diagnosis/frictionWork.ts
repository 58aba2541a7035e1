/**
 * Friction against maximal dissipation (docs/physics.md "Which law the impulses obey"): per contact, friction
 * mirrored onto the slip; per manifold, friction doing positive work along the post-step slip. The attribution
 * (attribution.ts) gives these contacts the friction share.
 */
import type { ContactLedger } from '../frameLedger.js';
import type { FrameFacts } from './attribution.js';
import type { ContactLaw } from './lawFit.js';
import { hypot2Exact, hypot3 } from '../../engine/index.js';

/**
 * Friction against maximal dissipation, judged per manifold (the contacts of one body pair): its friction work
 * Σλt·½(ġt⁻ + ġt⁺) and its power along the post-step slip Σλt·ġt⁺ both positive. The resultant is unique where
 * per-point impulses are not (coplanar corners, a writer's fitted λt), and Gauss–Seidel's cancelling lateral
 * impulses at coupled corners do no net work (Stewart & Trinkle 1996, the work of an impulse).
 */
/** A contact's friction is flipped when it lies on the cone's edge (‖λt‖ ≥ (1 − this)·μλn) pointing along the slip within this. */
export const FLIPPED_FRICTION_TOLERANCE = 0.02;

/** λt = +μλn·ġt⁺/‖ġt⁺‖: Coulomb's sliding law with the sign flipped. */
export function flippedFriction(law: ContactLaw, L: ContactLedger, lambda: readonly number[], c: number): boolean {
  if (law.friction !== 'slide-along' || !(L.frictionWork > 0) || !(law.coneRatio >= 1 - FLIPPED_FRICTION_TOLERANCE)) return false;
  const lt = hypot2Exact(lambda[3 * c + 1], lambda[3 * c + 2]);
  return L.slipPower >= (1 - FLIPPED_FRICTION_TOLERANCE) * lt * L.slip;
}

/** Friction along the slip: the manifold's power along it is at least this fraction of Σ‖λt‖·‖ġt⁺‖. */
export const FRICTION_ALONG_SLIP = 0.5;

export function manifoldFriction(fr: FrameFacts, cs: readonly number[], exactIsland: boolean, into: Map<number, number>): void {
  const byPair = new Map<number, number[]>();
  for (const c of cs) {
    const ct = fr.contacts[c];
    const key = Math.min(ct.bodyA, ct.bodyB) * 1e6 + Math.max(ct.bodyA, ct.bodyB);
    let g = byPair.get(key);
    if (!g) byPair.set(key, (g = []));
    g.push(c);
  }
  for (const g of byPair.values()) {
    let work = 0,
      power = 0,
      bound = 0,
      normal = 0,
      muNormal = 0;
    const F = [0, 0, 0];
    const lam = fr.frame.solver.lambda;
    for (const c of g) {
      const L = fr.ledger[c],
        ct = fr.frame.contacts[c];
      work += L.frictionWork;
      power += L.slipPower;
      bound += hypot2Exact(lam[3 * c + 1], lam[3 * c + 2]) * L.slip;
      normal += lam[3 * c];
      muNormal += ct.mu * lam[3 * c];
      for (let k = 0; k < 3; k++) F[k] += lam[3 * c + 1] * ct.t1[k] + lam[3 * c + 2] * ct.t2[k];
    }
    // the manifold slides (its resultant friction on the cone's edge, ‖Σλt‖ = μΣλn: unique even where the points'
    // split is not) and its friction pushes mostly along the slip: a flipped sign (power = +μλn‖v_t‖), not a
    // truncated iterate's lateral residue inside the cone
    const sliding = normal > 0 && hypot3(F[0], F[1], F[2]) >= (1 - FLIPPED_FRICTION_TOLERANCE) * muNormal;
    // one manifold alone (a body on the ground): Gauss–Seidel without restitution or bias only lowers the kinetic
    // energy, so its friction's net positive work along the slip is the law's, sliding or not
    const judged = byPair.size === 1 ? exactIsland || sliding : exactIsland && sliding;
    if (!(work > 0 && judged && power >= FRICTION_ALONG_SLIP * bound)) continue;
    let pos = 0;
    for (const c of g) pos += Math.max(0, fr.ledger[c].frictionWork);
    for (const c of g) {
      const w = Math.max(0, fr.ledger[c].frictionWork);
      if (w > 0) into.set(c, (work * w) / pos);
    }
  }
}
