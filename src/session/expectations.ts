/** Checks a scenario's expectations (docs/scene-format.md "Expectations") against a run. */
import type { Expectation } from '../format/scene.js';
import type { RunResult } from './runScenario.js';
import { formatCount, formatNumber, formatQuantity, formatSigned } from '../engine/index.js';
import { checkDeterminism } from './compare/determinism.js';
import { divergenceSummary } from './compare/divergenceText.js';

export interface ExpectationResult {
  readonly expectation: Expectation;
  readonly ok: boolean;
  /** One line: what was measured, e.g. "energy non-increasing (−12.3 J)" or "+0.41 J at frame 112". */
  readonly message: string;
  /** Frame where it failed first, if it is frame-specific. */
  readonly frame?: number;
}

const fmt = (x: number, unit: string): string => `${formatSigned(x)} ${unit}`;
const q = formatQuantity;

export function checkExpectation(x: Expectation, run: RunResult): ExpectationResult {
  const frames = run.frames;
  const bodyNamed = (name: string) => run.world.bodies.find((b) => b.name === name)!;
  switch (x.kind) {
    case 'energyNonIncreasing': {
      let prev = run.initialEnergy,
        worst = -Infinity,
        at = -1;
      for (const f of frames) {
        const rise = f.totalEnergy - prev;
        if (rise > worst) {
          worst = rise;
          at = f.frame;
        }
        prev = f.totalEnergy;
      }
      const drift = (frames.at(-1)?.totalEnergy ?? run.initialEnergy) - run.initialEnergy;
      return worst > x.toleranceJ
        ? { expectation: x, ok: false, frame: at, message: `energy rose by ${fmt(worst, 'J')} at frame ${at} (tolerance ${q(x.toleranceJ, 'J')})` }
        : { expectation: x, ok: true, message: `energy non-increasing (${fmt(drift, 'J')} over ${formatCount(frames.length, 'frame')})` };
    }
    case 'maxPenetration': {
      let worst = 0,
        at = -1;
      for (const f of frames)
        if (f.maxPenetration > worst) {
          worst = f.maxPenetration;
          at = f.frame;
        }
      return {
        expectation: x,
        ok: worst <= x.meters,
        frame: at >= 0 ? at : undefined,
        message: `max penetration ${q(worst * 1000, 'mm')}${at >= 0 ? ` at frame ${at}` : ''} (limit ${q(x.meters * 1000, 'mm')})`,
      };
    }
    case 'finalPosition': {
      const b = bodyNamed(x.body);
      const d = Math.hypot(b.x[0] - x.position[0], b.x[1] - x.position[1], b.x[2] - x.position[2]);
      return {
        expectation: x,
        ok: d <= x.tolerance,
        message: `${x.body} ends ${q(d, 'm')} from [${x.position.map((v) => formatNumber(v, 4)).join(', ')}] (tolerance ${q(x.tolerance, 'm')})`,
      };
    }
    case 'finalVelocity': {
      const b = bodyNamed(x.body);
      const d = Math.hypot(b.v[0] - x.velocity[0], b.v[1] - x.velocity[1], b.v[2] - x.velocity[2]);
      return { expectation: x, ok: d <= x.tolerance, message: `${x.body} velocity off by ${q(d, 'm/s')} (tolerance ${q(x.tolerance, 'm/s')})` };
    }
    case 'noSolverFailures': {
      const bad = frames.find((f) => f.status === 'failed');
      return bad
        ? { expectation: x, ok: false, frame: bad.frame, message: `solver failed at frame ${bad.frame}` }
        : { expectation: x, ok: true, message: `no solver failures in ${formatCount(frames.length, 'frame')}` };
    }
    case 'momentumConserved': {
      let worst = 0,
        at = -1;
      const p0 = run.initialMomentum;
      for (const f of frames) {
        const d = Math.hypot(f.momentum[0] - p0[0], f.momentum[1] - p0[1], f.momentum[2] - p0[2]);
        if (d > worst) {
          worst = d;
          at = f.frame;
        }
      }
      return {
        expectation: x,
        ok: worst <= x.tolerance,
        frame: worst > x.tolerance ? at : undefined,
        message: `largest momentum change ${q(worst, 'N·s')}${worst > x.tolerance ? ` at frame ${at}` : ''} (tolerance ${q(x.tolerance, 'N·s')})`,
      };
    }
    case 'bodyAtRest': {
      const b = bodyNamed(x.body);
      const s = Math.hypot(b.v[0], b.v[1], b.v[2]);
      return { expectation: x, ok: s <= x.speed, message: `${x.body} speed ${q(s, 'm/s')} at the end (limit ${q(x.speed, 'm/s')})` };
    }
    case 'deterministic': {
      const r = checkDeterminism(run.world.scenario, x.mode);
      const parts: [string, typeof r.repeat][] = [
        ['run twice', r.repeat],
        ...(r.shuffled ? [['with the contacts shuffled', r.shuffled] as [string, typeof r.repeat]] : []),
      ];
      const failed = parts.filter(([, d]) => d.firstDivergence);
      const frames = r.repeat.framesCompared;
      if (!failed.length)
        return { expectation: x, ok: true, message: `${parts.map(([w]) => w).join(' and ')}: no divergence in ${formatCount(frames, 'frame')}` };
      return {
        expectation: x,
        ok: false,
        frame: Math.min(...failed.map(([, d]) => d.firstDivergence!.frame)),
        message: failed.map(([w, d]) => `${w}: ${divergenceSummary(d)}`).join('; '),
      };
    }
  }
}

export function checkAll(expectations: readonly Expectation[], run: RunResult): ExpectationResult[] {
  return expectations.map((x) => checkExpectation(x, run));
}
