/**
 * Non-physical behaviour followed across frames (docs/physics.md, "Non-physical behaviour"): penetration
 * growth and λn jitter are judged on each contact's own history, matched by the writer's feature id.
 */
import assert from 'node:assert/strict';
import { JITTER_WINDOW, NonPhysicalDetector, PENETRATION_WINDOW, type NonPhysicalEvent } from '../../src/session/nonPhysical.js';
import type { RecordedContact, RecordedFrame } from '../../src/format/recording.js';

const contact = (feature: string | undefined, depth: number, a = 1): RecordedContact => ({
  a,
  b: 0,
  point: [0, 0, 0],
  normal: [0, 0, 1],
  t1: [1, 0, 0],
  t2: [0, 1, 0],
  depth,
  mu: 0.5,
  e: 0,
  ...(feature === undefined ? {} : { feature }),
});
const frame = (k: number, contacts: RecordedContact[], lambdaN: number[]): RecordedFrame => ({
  frame: k,
  time: k / 60,
  bodies: [],
  contacts,
  solver: { name: 'acme', status: 'converged', lambda: lambdaN.flatMap((l) => [l, 0, 0]) },
});
const detector = (): NonPhysicalDetector => new NonPhysicalDetector({ speedTolerance: 1e-3, penetrationGrowth: 0.005, judgeFriction: true }, false);
/** Runs frames through one detector; the events per frame number. */
function run(frames: RecordedFrame[]): Map<number, NonPhysicalEvent[]> {
  const d = detector(),
    out = new Map<number, NonPhysicalEvent[]>();
  for (const f of frames) {
    const ev = d.events(f, null);
    if (ev.length) out.set(f.frame, ev);
  }
  return out;
}

describe('non-physical behaviour tracked per contact across frames', () => {
  it('a contact that sinks 1 mm per frame is reported once, when the window of rising depths is full', () => {
    const frames = Array.from({ length: 20 }, (_, k) => frame(k, [contact('v0', 0.001 * (k + 1))], [1]));
    const ev = run(frames);
    assert.deepEqual([...ev.keys()], [PENETRATION_WINDOW]);
    const [e] = ev.get(PENETRATION_WINDOW)!;
    assert.equal(e.kind, 'penetration-growth');
    assert.match(e.text, /by 10\.0 mm to 11\.0 mm/);
  });
  it('a frame without the contact restarts its history; a contact without a feature id is not tracked', () => {
    const gap = Array.from({ length: 20 }, (_, k) => (k === 5 ? frame(k, [], []) : frame(k, [contact('v0', 0.001 * (k + 1))], [1])));
    assert.deepEqual([...run(gap).keys()], [6 + PENETRATION_WINDOW]);
    const anonymous = Array.from({ length: 20 }, (_, k) => frame(k, [contact(undefined, 0.001 * (k + 1))], [1]));
    assert.equal(run(anonymous).size, 0);
  });
  it('contacts are matched by body pair and feature, whatever their order in the frame', () => {
    // "v0" sinks, "v1" stays; they swap places every frame
    const frames = Array.from({ length: 14 }, (_, k) => {
      const sink = contact('v0', 0.001 * (k + 1)),
        still = contact('v1', 0.004);
      return k % 2 ? frame(k, [still, sink], [1, 1]) : frame(k, [sink, still], [1, 1]);
    });
    const ev = run(frames).get(PENETRATION_WINDOW)!;
    assert.equal(ev.length, 1);
    assert.equal(ev[0].contact, PENETRATION_WINDOW % 2 ? 1 : 0);
    // the same feature id on another body pair is another contact
    const other = Array.from({ length: 14 }, (_, k) => frame(k, [contact('v0', 0.001 * (k + 1), 1 + (k % 2))], [1]));
    assert.equal(run(other).size, 0);
  });
  it('λn alternating up and down at rest is jitter, reported once; a steady λn is not', () => {
    const alternating = Array.from({ length: 30 }, (_, k) => frame(k, [contact('v0', 0.001)], [k % 2 ? 1.5 : 1]));
    const ev = run(alternating);
    assert.deepEqual([...ev.keys()], [JITTER_WINDOW - 1]);
    assert.equal(ev.get(JITTER_WINDOW - 1)![0].kind, 'jitter');
    assert.match(ev.get(JITTER_WINDOW - 1)![0].text, /between 1\.00 and 1\.50 N·s/);
    const steady = Array.from({ length: 30 }, (_, k) => frame(k, [contact('v0', 0.001)], [1 + 1e-3 * k]));
    assert.equal(run(steady).size, 0);
  });
  it('round-off is no jitter: λn constant to ±1e-15 while a box slides, then one real change when it stops (failed before: 10 reversals of 1e-15)', () => {
    const frames = Array.from({ length: 30 }, (_, k) => frame(k, [contact('v0', 0.001)], [(k < 20 ? 2.4525 : 1.6) + (k % 2 ? 1e-15 : -1e-15)]));
    assert.equal(run(frames).size, 0);
  });
  it('thousands of short-lived contacts reuse track storage; a long-lived one is still judged', () => {
    const frames = Array.from({ length: 200 }, (_, k) =>
      frame(
        k,
        [contact('long', k >= 150 ? 0.001 * (k - 149) : 0.001), ...Array.from({ length: 50 }, (_, j) => contact(`short${k}-${j}`, 0.001))],
        new Array(51).fill(1),
      ),
    );
    const ev = run(frames);
    assert.deepEqual(
      [...ev.entries()].map(([k, e]) => [k, e.map((x) => x.kind)]),
      [[150 + PENETRATION_WINDOW, ['penetration-growth']]],
    );
  });
});
