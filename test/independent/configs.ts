// Base step configurations and the header `solver` blocks that declare them (docs/recording-format.md,
// "Re-solving a frame: header solver parameters" and "What the diagnosis reads from header solver").

import type { StepConfig } from './stepper.js';
import type { Vec3 } from './vec.js';

export const H60 = 1 / 60;
export const G: Vec3 = [0, 0, -9.81];
/** a converged solve: no row's velocity changes by more than this in a sweep (m/s) */
export const CONVERGED = 1e-12;

/** Converged PGS–Coulomb, no stabilisation in the velocities, speculative contacts within 5 cm. */
export function pgsConverged(over: Partial<StepConfig> = {}): StepConfig {
  return {
    h: H60,
    gravity: G,
    solver: 'pgs',
    maxIterations: 20000,
    tolerance: CONVERGED,
    warmStart: true,
    margin: 0.05,
    restThreshold: 0.5,
    erp: 0,
    slop: 0.005,
    restitution: 'law',
    integrator: 'semi-implicit',
    ...over,
  };
}

/** The header block that declares a configuration honestly. */
export function declare(cfg: StepConfig, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const block: Record<string, unknown> = {
    name,
    kind: cfg.tolerance > 0 ? 'iterative-tolerance' : 'iterative-fixed',
    maxIterations: cfg.maxIterations,
    warmStart: cfg.warmStart,
    restVelocityThreshold: cfg.restThreshold,
    frictionCombine: 'geometric-mean',
    restitutionCombine: 'max',
  };
  if (cfg.tolerance > 0) block.tolerance = cfg.tolerance;
  if (cfg.soft) {
    block.contactModel = 'soft';
    block.soft = { k: cfg.soft.k, c: cfg.soft.c };
    block.baumgarte = false;
  } else if (cfg.erp > 0) {
    block.erp = cfg.erp;
    block.slop = cfg.slop;
    block.baumgarte = true;
  } else {
    block.erp = 0;
    block.baumgarte = false;
  }
  if (cfg.positionPass) {
    block.splitImpulse = true;
    block['x-positionPass'] = { beta: cfg.positionPass.beta, slop: cfg.positionPass.slop };
  }
  if (cfg.solver === 'socp') block.friction = 'cone';
  if (cfg.margin > 0) block['x-speculativeMargin'] = cfg.margin;
  return { ...block, ...extra };
}
