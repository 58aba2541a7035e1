/**
 * From a frame's shares to its injection findings (docs/physics.md "Diagnosis"): every mechanism above the
 * energy tolerance is one finding; a frame whose total rose carries at least one; the frame's position
 * correction and the integrator are their own channels. The joules a finding shows are exactly the shares'
 * (one computation for `diagnose`, `report`, the inspector and the charts).
 */
import type { RecordedFrame } from '../../format/recording.js';
import type { FrameLedger } from '../frameLedger.js';
import type { CounterfactualSavings, Finding, InjectionMechanism } from './findings.js';
import { LISTED_CONTACTS, MECHANISM_SEVERITY } from './findings.js';
import type { ContactLaw } from './lawFit.js';
import type { Shares } from './shares.js';

export interface InjectionInputs {
  readonly frame: RecordedFrame;
  readonly ledger: FrameLedger;
  readonly shares: Shares;
  readonly laws: readonly (ContactLaw | undefined)[];
  readonly savings?: CounterfactualSavings;
  readonly energyTolerance: number;
  /** ½Σm|g|²Δt² over the dynamic bodies: the size of semi-implicit Euler's per-step residual. */
  readonly eulerResidual: number;
  readonly normalUnavailable: boolean;
  /** Per contact, its share of the position correction (the bodies it touches that moved beyond v·Δt), or null. */
  readonly positionWeights: ReadonlyMap<number, number> | null;
}

/** The mechanisms a frame reports, with their joules (shares updated for the channels added here). */
export function reportedMechanisms(x: InjectionInputs): InjectionMechanism[] {
  const { frame: f, ledger, shares } = x;
  const etol = x.energyTolerance;
  if (x.normalUnavailable && f.contacts.length > 0) {
    // no contact impulses in the file: a gain is reported, never attributed to a mechanism of the solve
    const gain = ledger.delta - ledger.external;
    if (!(gain > etol)) return [];
    shares.add('unattributed-gain', gain);
    return ['unattributed-gain'];
  }
  // energy from outside (format 1.1 external impulses) is work done on the bodies, never an injection
  const rose = ledger.delta - ledger.external;
  const reported: InjectionMechanism[] = [];
  let reportedJ = 0;
  const entries = [...shares.total.entries()].sort((a, b) => b[1] - a[1]);
  for (const [m, j] of entries)
    if (j > etol) {
      reported.push(m);
      reportedJ += j;
    }
  const contactFree = f.contacts.length === 0;
  // a frame whose total rose must carry a finding: the largest share (even if each is small), else a channel
  if (reported.length === 0 && rose > etol && entries.length > 0 && entries[0][1] >= Math.max(0, ledger.integrator, ledger.positionCorrection)) {
    reported.push(entries[0][0]);
    reportedJ += entries[0][1];
  }
  // a position pass needs contacts to push out of: in a contact-free frame a displacement beyond v·Δt is the integrator's
  if (!contactFree && ledger.positionCorrection > etol && rose > etol) {
    if (x.positionWeights) shares.spread('position-correction', ledger.positionCorrection, x.positionWeights);
    else shares.add('position-correction', ledger.positionCorrection);
    reported.push('position-correction');
    reportedJ += ledger.positionCorrection;
  }
  const rest = rose - reportedJ;
  // semi-implicit Euler's own residual lies between −½Σm|g|²Δt² (free fall) and +½Σm|g|²Δt² (bodies held by
  // contacts, whose kinetic-only contact work is −½m|g|²Δt²): only what exceeds it is the integrator's gain
  const integratorChannel = ledger.integrator + (contactFree ? ledger.positionCorrection : 0);
  const integratorGain = integratorChannel - (contactFree ? -1 : 1) * x.eulerResidual;
  // with pushing contacts, the integrator channel also holds the potential energy of bodies they lift (a stack's
  // upper boxes): without an exact re-solve, an active stabilisation is the likelier cause than the integrator
  const pushing = rose > etol && (ledger.contacts ?? []).some((c, i) => c.stabilisationSpeed > 0 && f.solver.lambda[3 * i] > 0);
  if (rose > etol && rest > etol && integratorGain > etol && (contactFree || (reported.length === 0 && !pushing))) {
    shares.add('integrator-drift', Math.min(integratorGain, rose));
    reported.push('integrator-drift');
  } else if (rose > etol && reported.length === 0 && !contactFree) {
    // the frame rose and no channel or law shows it: the data are reported, no mechanism guessed — unless an
    // active stabilisation pushes, whose energy lies in the lift of the bodies it holds
    const m: InjectionMechanism = pushing ? 'bias-injection' : 'unattributed';
    shares.add(m, rose);
    reported.push(m);
  }
  return reported;
}

/** The listed contacts (ranked by joules), their joules and laws for one reported mechanism. */
export function listedContacts(
  shares: Shares,
  m: InjectionMechanism,
  laws: readonly (ContactLaw | undefined)[],
): Pick<Finding, 'contacts' | 'contactJoules' | 'laws'> & { all: [number, number][] } {
  const all = shares.ranked(m);
  const listed = all.slice(0, LISTED_CONTACTS);
  const contacts = listed.map(([c]) => c);
  const ls = contacts.map((c) => laws[c]).filter((l): l is ContactLaw => l !== undefined);
  return {
    all,
    contacts,
    ...(contacts.length ? { contactJoules: listed.map(([, j]) => j) } : {}),
    ...(ls.length === contacts.length && ls.length > 0 ? { laws: ls } : {}),
  };
}

/** Severity: a truncated solve without an exact re-solve behind it is a warning. */
export function severityOf(m: InjectionMechanism, savings: CounterfactualSavings | undefined): Finding['severity'] {
  return m === 'non-converged-solve' && !(savings && savings.islands > 0) ? 'warning' : MECHANISM_SEVERITY[m];
}
