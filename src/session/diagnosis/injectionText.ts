/** The headline, evidence and explanation of one injection finding (wording.ts holds the phrases). */
import type { RecordedFrame } from '../../format/recording.js';
import type { FrameLedger, StabilisationModel } from '../frameLedger.js';
import type { ContinuationEvidence, CounterfactualSavings, InjectionMechanism } from './findings.js';
import type { ContactLaw } from './lawFit.js';
import { continuationEvidence, counterfactualEvidence, headline, lawClause, lawEvidence, MECHANISM_SOURCE, si, totalEvidence, trim } from './wording.js';

export interface InjectionText {
  readonly headline: string;
  readonly summary: string;
  readonly evidence: readonly string[];
  readonly explanation: string;
}

export interface DescribeInput {
  readonly mechanism: InjectionMechanism;
  readonly frame: RecordedFrame;
  readonly ledger: FrameLedger;
  readonly joules: number;
  /** Contacts of the mechanism ranked by joules. */
  readonly ranked: readonly [number, number][];
  readonly laws: readonly (ContactLaw | undefined)[];
  readonly savings?: CounterfactualSavings;
  readonly continuation?: ContinuationEvidence;
  readonly model: StabilisationModel;
  /** The frame's status, read for what the header declares it to be (solverDeclarations.ts statusMeaning). */
  readonly status: string;
  readonly energyTolerance: number;
  readonly fittedFriction: boolean;
  readonly eulerResidual: number;
}

/** The one-line law clause of the finding (after "mechanism, frame, contacts:"). */
function clauseOf(x: DescribeInput): string {
  const f = x.frame;
  const top = x.ranked[0]?.[0];
  const law = top !== undefined ? x.laws[top] : undefined;
  const ct = top !== undefined ? f.contacts[top] : undefined;
  const L = top !== undefined ? x.ledger.contacts?.[top] : undefined;
  switch (x.mechanism) {
    case 'friction-positive-work':
      return top !== undefined
        ? `friction pushes along the slip (λt·v_t > 0)${L ? `, slip ${trim(L.slip)} m/s` : ''}${law && Number.isFinite(law.coneRatio) ? `, ‖λt‖/μλn ${trim(law.coneRatio)}` : ''}`
        : 'manifold friction pushes along the slip';
    case 'socp-separation':
      return law && ct && L
        ? `lifts off at ${trim(law.enforced)} m/s = μ‖v_t‖ (μ ${trim(ct.mu)}, slip ${trim(L.slip)} m/s): convex QP-SOCP model`
        : 'the convex model lifts';
    case 'non-converged-solve': {
      const c = x.continuation;
      return c && c.sweeps > 0
        ? `${c.spread} of ${c.islandContacts} contacts off their laws; ${c.sweeps} more sweep${c.sweeps === 1 ? ' removes' : 's remove'} ${Math.round((100 * c.removed) / Math.max(c.excess, 1e-300))} %`
        : 'the solve stopped before its own fixed point';
    }
    case 'unattributed':
      return law && law.normal === 'none' ? lawClause(law, ct?.depth ?? 0, x.model, ct?.e ?? 0) : 'the frame gained energy that no law or channel explains';
    case 'position-correction':
      return `a position pass moved bodies ${f.contacts.length ? 'out of their overlaps ' : ''}beyond v·Δt (potential energy)`;
    case 'integrator-drift':
      return `${f.contacts.length === 0 ? 'no contacts; ' : ''}the integrator channel gains ${si(x.ledger.integrator + (f.contacts.length === 0 ? x.ledger.positionCorrection : 0), 'J')}`;
    case 'unattributed-gain':
      return 'normal impulses not recorded: no mechanism is concluded';
    case 'overlap-push-out':
      return law && ct ? `appears ${si(ct.depth, 'm')} deep, pushed out at ${trim(law.enforced)} m/s` : 'an initial overlap pushed apart';
    default:
      return law && ct ? lawClause(law, ct.depth, x.model, ct.e) : 'the stabilisation lifts the bodies it holds';
  }
}

export function describeInjection(x: DescribeInput): InjectionText {
  const f = x.frame;
  const contacts = x.ranked.map(([c]) => c);
  const summary = clauseOf(x);
  const head = headline({ mechanism: x.mechanism, frame: f.frame, contacts, joules: x.joules, clause: summary });
  const evidence: string[] = [];
  for (const [c] of x.ranked.slice(0, 3)) {
    const law = x.laws[c];
    if (law) evidence.push(lawEvidence(c, law, x.ledger.contacts?.[c], f, x.model));
  }
  if (x.ranked.length > 3)
    evidence.push(
      `Spread over ${x.ranked.length} contacts (largest ${x.ranked
        .slice(0, 3)
        .map(([c, j]) => `#${c} ${si(j, 'J')}`)
        .join(', ')}).`,
    );
  if (x.mechanism === 'friction-positive-work' && x.fittedFriction)
    evidence.push('Judged per manifold resultant: the writer fitted λt, so per-point friction impulses are not unique (header solver.lambdaSource).');
  if (x.mechanism === 'socp-separation' || x.mechanism === 'position-correction' || x.mechanism === 'integrator-drift' || x.mechanism === 'unattributed-gain') {
    // channels measured from the ledger alone
  } else {
    const cf = counterfactualEvidence(x.savings);
    if (cf) evidence.push(cf);
  }
  if (x.mechanism === 'non-converged-solve' || x.mechanism === 'unattributed') {
    const c = continuationEvidence(x.continuation);
    if (c) evidence.push(c);
    evidence.push(`${x.status[0].toUpperCase()}${x.status.slice(1)}.`);
  }
  if (x.mechanism === 'integrator-drift')
    evidence.push(
      `Total energy rose by ${si(x.ledger.delta, 'J')} and the integrator channel holds ${si(x.ledger.integrator, 'J')}${f.contacts.length === 0 ? ` in a frame without contacts (semi-implicit Euler's own residual is ${si(x.eulerResidual, 'J')})` : ''}.`,
    );
  const total = totalEvidence(x.ledger, x.energyTolerance);
  if (total) evidence.push(total);
  evidence.push(`${MECHANISM_SOURCE[x.mechanism][0].toUpperCase()}${MECHANISM_SOURCE[x.mechanism].slice(1)}.`);
  return { headline: head, summary, evidence, explanation: `${head}. ${evidence.join(' ')}` };
}
