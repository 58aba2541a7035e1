/**
 * The frame's status line under the timeline: one compact line — solver, status, iterations, contacts,
 * islands — and the frame's notes (what the re-assembly assumed or could not reproduce, what the file's
 * status means) folded behind a "n notes" expander instead of a run-on of clauses.
 */
import type { FrameView } from '../src/protocol/inspector.js';
import { el } from './dom.js';
import { plural, statusSummary } from './format.js';

export class StatusLine {
  private readonly summary = el('span', 'status-summary');
  private readonly notes = el('details', 'status-notes');
  private readonly notesLabel = el('summary');
  private readonly list = el('ul');

  constructor(private readonly root: HTMLElement) {
    this.notesLabel.title = 'what the re-assembly of this frame assumed or could not reproduce, and what the file’s status means';
    this.notes.append(this.notesLabel, this.list);
    root.replaceChildren(this.summary, this.notes);
  }

  show(v: FrameView): void {
    this.summary.textContent = statusSummary(v);
    this.root.classList.toggle('bad', v.status !== 'converged');
    this.notes.hidden = v.notes.length === 0;
    this.notesLabel.textContent = plural(v.notes.length, 'note');
    // rewrite the list only when the notes change (most frames of a session share them)
    const same = this.list.children.length === v.notes.length && v.notes.every((n, k) => this.list.children[k].textContent === n);
    if (!same) this.list.replaceChildren(...v.notes.map((n) => el('li', undefined, n)));
  }
}
