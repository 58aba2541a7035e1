/**
 * The live bar of the inspector (docs/live-protocol.md): shown while a session grows — a recording still being
 * written, or an engine streaming to Contact Lens: Listen for a Live Engine. It carries the badge (● LIVE while
 * the view follows the newest frame, "scrubbed back" otherwise: End follows again; ⏸ PAUSED at a break), how to
 * connect, the break controls (Pause, Step, Continue, break on a finding's severity or mechanism, or at a frame)
 * and the stream's problems (a line that could not be read, a writer that disconnected mid-line).
 */
import type { BreakSettings, LiveAction, LiveState, LiveUpdate } from '../src/protocol/live.js';
import { el } from './dom.js';
import { button, controlValue, dropdown, setDisabled, textField } from './toolkit.js';

/** Problems listed (the newest); more are counted. */
const SHOWN_PROBLEMS = 5;

export class LiveBar {
  readonly root = el('section', 'live-bar');
  private readonly badge = el('span', 'live-badge');
  private readonly detail = el('span', 'live-detail muted');
  private readonly connect = el('div', 'live-connect');
  private readonly controls = el('div', 'live-controls buttons');
  private readonly problems = el('ul', 'live-problems');
  private readonly pauseButton: HTMLElement;
  private readonly stepButton: HTMLElement;
  private readonly continueButton: HTMLElement;
  private readonly severity: HTMLElement & { value: string };
  private mechanism: HTMLElement & { value: string };
  private readonly frameField: HTMLElement & { value: string };
  private readonly shownProblems: string[] = [];
  private problemCount = 0;
  private state: LiveState | null = null;
  private mechanisms: readonly string[] = [];

  constructor(
    private readonly send: (a: LiveAction) => void,
    /** True while the view follows the newest frame. */
    private readonly following: () => boolean,
  ) {
    this.root.id = 'live-bar';
    this.root.hidden = true;
    this.root.setAttribute('aria-label', 'live session');
    const head = el('div', 'live-head');
    head.append(this.badge, this.detail);
    this.pauseButton = button({
      id: 'btn-live-pause',
      label: '❚❚ Pause engine',
      title: 'Stop the engine at the next frame',
      onClick: () => this.send({ action: 'pause' }),
    });
    this.stepButton = button({
      id: 'btn-live-step',
      label: 'Step frame',
      title: 'Let the engine write one more frame and stop again',
      onClick: () => this.send({ action: 'step' }),
    });
    this.continueButton = button({
      id: 'btn-live-continue',
      label: '▶ Continue',
      title: 'Let the engine run on (break conditions stay armed)',
      appearance: 'primary',
      onClick: () => this.send({ action: 'continue' }),
    });
    this.severity = dropdown('live-break-severity', ['off', 'error', 'warning', 'info'], 'off');
    this.severity.title = 'Break at the next finding of this severity or worse';
    this.mechanism = dropdown('live-break-mechanism', ['any mechanism'], 'any mechanism');
    this.frameField = textField('live-break-frame', '', 'at frame');
    this.frameField.title = 'Break when this frame number arrives (empty: no frame break)';
    for (const c of [this.severity, this.mechanism]) c.addEventListener('change', () => this.breakChanged());
    this.frameField.addEventListener('change', () => this.breakChanged());
    const breakOn = el('span', 'live-break');
    breakOn.append(el('span', 'muted', 'break on'), this.severity, this.mechanism, this.frameField);
    this.controls.append(this.pauseButton, this.stepButton, this.continueButton, breakOn);
    this.root.append(head, this.connect, this.controls, this.problems);
  }

  /** Puts the bar on the page (above the timeline). */
  mount(before: HTMLElement): void {
    before.parentElement?.insertBefore(this.root, before);
  }

  update(m: LiveUpdate): void {
    this.state = m.state;
    if (m.mechanisms && m.mechanisms.join() !== this.mechanisms.join()) this.setMechanisms(m.mechanisms);
    for (const e of m.errors) {
      this.problemCount++;
      this.shownProblems.push(e);
      if (this.shownProblems.length > SHOWN_PROBLEMS) this.shownProblems.shift();
    }
    if (m.errors.length) this.renderProblems();
    this.render();
  }

  /** The view moved (followed or scrubbed back): the badge says which. */
  render(): void {
    const s = this.state;
    this.root.hidden = s === null;
    if (!s) return;
    const follow = this.following();
    const paused = s.paused;
    let badge: string, cls: string;
    if (paused) [badge, cls] = [`⏸ PAUSED at frame ${paused.frame}`, 'paused'];
    else if (s.stream === 'waiting') [badge, cls] = ['● waiting for an engine', 'waiting'];
    else if (s.stream === 'ended') [badge, cls] = ['■ ended', 'ended'];
    else if (s.stream === 'still') [badge, cls] = ['● file not growing', 'ended'];
    else if (follow) [badge, cls] = ['● LIVE', 'live'];
    else [badge, cls] = ['● LIVE · scrubbed back (End follows)', 'behind'];
    this.badge.textContent = badge;
    this.badge.className = `live-badge ${cls}`;
    const parts = [
      paused ? `break: ${paused.reason}` : '',
      s.pausePending ? 'pause asked: the engine stops at the next frame it writes' : '',
      `${s.frames} frame${s.frames === 1 ? '' : 's'}${s.rate > 0 ? ` · ${s.rate} /s` : ''}`,
      s.diagnosed !== undefined && s.diagnosed < s.frames ? `diagnosis ${s.frames - s.diagnosed} frame${s.frames - s.diagnosed === 1 ? '' : 's'} behind` : '',
      s.unfinishedBytes > 0 ? `waiting for the rest of a line (${s.unfinishedBytes} bytes so far)` : '',
      s.others > 0 ? `${s.others} more writer${s.others === 1 ? '' : 's'} recorded, not shown` : '',
      s.recording ? `recording: ${s.recording}` : '',
    ].filter(Boolean);
    this.detail.textContent = parts.join(' · ');
    this.connect.hidden = !s.connect;
    if (s.connect) {
      this.connect.replaceChildren(
        el('span', 'muted', s.stream === 'waiting' ? 'Run your engine with ' : 'Writers connect with '),
        el('code', 'live-env', `${s.connect.variable}=${s.connect.value}`),
        el('span', 'muted', ` (a writer library reads it: docs/live-protocol.md; recordings go to ${s.connect.folder})`),
      );
    }
    const live = s.canBreak;
    this.controls.hidden = s.mode !== 'listening';
    setDisabled(this.pauseButton, !live || paused !== null || s.pausePending);
    setDisabled(this.stepButton, !live);
    setDisabled(this.continueButton, !live || (paused === null && !s.pausePending));
    this.showBreak(s.breakOn);
  }

  private showBreak(b: BreakSettings): void {
    if (document.activeElement === this.frameField) return; // the user is typing
    if (this.severity.value !== b.severity) this.severity.value = b.severity;
    const mech = b.mechanism ?? 'any mechanism';
    if (this.mechanism.value !== mech) this.mechanism.value = mech;
    const frame = b.frame === null ? '' : String(b.frame);
    if (this.frameField.value !== frame) this.frameField.value = frame;
  }

  private breakChanged(): void {
    const text = controlValue(this.frameField).trim();
    const frame = /^\d+$/.test(text) ? Number(text) : null;
    const mech = controlValue(this.mechanism);
    this.send({
      action: 'breakOn',
      breakOn: {
        severity: controlValue(this.severity) as BreakSettings['severity'],
        mechanism: mech === 'any mechanism' || mech === '' ? null : mech,
        frame,
      },
    });
  }

  private setMechanisms(list: readonly string[]): void {
    this.mechanisms = list;
    const d = dropdown('live-break-mechanism', ['any mechanism', ...list], 'any mechanism');
    d.title = 'Break at the next finding of this mechanism (docs/physics.md "Diagnosis")';
    d.addEventListener('change', () => this.breakChanged());
    this.mechanism.replaceWith(d);
    this.mechanism = d;
  }

  private renderProblems(): void {
    const more = this.problemCount - this.shownProblems.length;
    this.problems.replaceChildren(
      ...this.shownProblems.map((p) => el('li', 'live-problem', p)),
      ...(more > 0 ? [el('li', 'muted', `… and ${more} earlier`)] : []),
    );
  }
}
