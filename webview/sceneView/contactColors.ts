/**
 * How the scene view colours its contacts (by state, or by a quantity on a low → high ramp) and what its
 * legend says: the arrow scales, the compare and what-if ghosts, the colour mode's range or the state swatches.
 */
import { Color } from 'three';
import type { ContactView } from '../../src/protocol/inspector.js';
import { el } from '../dom.js';
import { si } from '../format.js';
import { niceStep } from '../niceStep.js';
import type { SceneColors } from './sceneColors.js';

export const COLOR_MODES = ['state', 'λn', 'excess speed', 'penetration', 'friction work', 'energy injected'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

/** Per contact: the quantity a colour mode shows (null: not known for this contact). */
function quantity(mode: ColorMode, c: ContactView): number | null {
  switch (mode) {
    case 'λn':
      return c.lambdaN;
    case 'excess speed':
      return c.excess;
    case 'penetration':
      return c.depth;
    case 'friction work':
      return c.frictionPower;
    case 'energy injected':
      return c.injected ?? null;
    default:
      return null;
  }
}
const UNITS: Record<ColorMode, string> = { state: '', λn: 'N·s', 'excess speed': 'm/s', penetration: 'm', 'friction work': 'J', 'energy injected': 'J' };

/** A contact's colour in `mode`: its state's colour, or its quantity on the ramp over the frame's contacts (open's colour when not known). */
export function contactColorOf(mode: ColorMode, contacts: readonly ContactView[], c: SceneColors): (c: ContactView) => string {
  if (mode === 'state') return (x) => (x.state === 'slip' ? c.slip : x.state === 'stick' ? c.stick : c.open);
  let lo = Infinity,
    hi = -Infinity;
  for (const x of contacts) {
    const v = quantity(mode, x);
    if (v !== null && Number.isFinite(v)) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  const a = new Color(c.rampLow),
    b = new Color(c.rampHigh),
    t = new Color();
  return (x) => {
    const v = quantity(mode, x);
    if (v === null || !Number.isFinite(v) || !(hi >= lo)) return c.open;
    return (
      '#' +
      t
        .copy(a)
        .lerp(b, hi > lo ? (v - lo) / (hi - lo) : 1)
        .getHexString()
    );
  };
}

/** What the legend reports of the frame drawn. */
export interface LegendInput {
  readonly mode: ColorMode;
  readonly contacts: readonly ContactView[];
  /** Some contact of the frame has λn > 0. */
  readonly hasImpulse: boolean;
  readonly metresPerNs: number;
  /** Typical body size (m). */
  readonly unit: number;
  /** The compare run's bodies are drawn. */
  readonly ghostBodies: boolean;
  /** Metres of arrow per m/s of the what-if ghost (0: none drawn). */
  readonly metresPerMps: number;
  /** The what-if's solver when a what-if result is shown. */
  readonly whatIfSolver: string | undefined;
}

/** The legend's text: the arrow scales, the ghosts, the colour mode's range. */
export function legendText(l: LegendInput): string {
  const parts: string[] = [];
  if (l.metresPerNs > 0 && l.hasImpulse) {
    const ref = niceStep(l.unit);
    parts.push(`arrows: impulse on the moving body, ${si(ref, 'm', 2)} = ${si(ref / l.metresPerNs, 'N·s', 2)}`);
  } else parts.push('no impulses in this frame');
  if (l.ghostBodies) parts.push('compare: run b’s bodies see-through in yellow');
  if (l.metresPerMps > 0 && l.whatIfSolver !== undefined) {
    const ref = niceStep(l.unit);
    parts.push(
      `what-if ghost: contact velocity after the step, recorded (foreground) beside ${l.whatIfSolver} (yellow); ${si(ref, 'm', 2)} = ${si(ref / l.metresPerMps, 'm/s', 2)}`,
    );
  }
  if (l.mode === 'state') parts.push('');
  else {
    const vals = l.contacts.map((c) => quantity(l.mode, c)).filter((x): x is number => x !== null && Number.isFinite(x));
    parts.push(
      vals.length
        ? `${l.mode}: ${si(Math.min(...vals), UNITS[l.mode])} … ${si(Math.max(...vals), UNITS[l.mode])} (low → high colour)`
        : `${l.mode}: not known for this frame`,
    );
  }
  return parts.filter(Boolean).join(' · ');
}

/** The legend: its text, then (colour by state) a swatch per contact state in the scene's colours. */
export function legendNodes(text: string, colors: SceneColors | null): Node[] {
  const out: Node[] = [];
  if (colors) {
    for (const [state, color, help] of [
      ['stick', colors.stick, 'closed, no slip'],
      ['slip', colors.slip, 'closed, ‖w_t‖ > 1 mm/s'],
      ['open', colors.open, 'the bodies part within the step (w_n·Δt > depth) or λn = 0'],
    ] as const) {
      const sw = el('span', 'swatch');
      sw.style.background = color;
      const item = el('span', 'legend-item');
      item.title = help;
      item.append(sw, document.createTextNode(state));
      out.push(item);
    }
    out.push(document.createTextNode('contacts of a finding and the selection enlarged · '));
  }
  out.push(document.createTextNode(text));
  return out;
}
