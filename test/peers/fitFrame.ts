/**
 * λ of one recorded frame fitted to the engine's own velocity change (fitLambda.ts), for recorders whose
 * engine hides some or all impulses (Jolt: all; Rapier and Bullet: the friction impulses).
 */
import type { RecordedBodyState, RecordedContact, RecordedPreState, RecordingHeader } from '../../src/format/recording.js';
import { preSolveBodyStates, toContactPoint } from '../../src/format/recording.js';
import { fitLambda } from './fitLambda.js';
import { recordedBodies, type PeerScene } from './scenes.js';

/** A header with the scene's bodies (masses, inertias): what preSolveBodyStates needs for the fit. */
export function peerFitHeader(scene: PeerScene, name: string): RecordingHeader {
  return {
    format: 'contact-lens-recording',
    version: 1,
    producer: { name },
    units: 'SI',
    conventions: { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' },
    dt: scene.dt,
    gravity: scene.gravity,
    bodies: recordedBodies(scene),
  };
}

/** λ fitted to post − pre (6 numbers per body) for the frame's contacts. */
export function fitFrameLambda(
  header: RecordingHeader,
  after: readonly RecordedBodyState[],
  pre: readonly RecordedPreState[],
  contacts: readonly RecordedContact[],
  fixedNormals?: readonly number[],
): number[] {
  if (contacts.length === 0) return [];
  const st = preSolveBodyStates(header, {
    frame: 0,
    time: header.dt,
    bodies: after,
    pre,
    contacts,
    solver: { name: 'fit', status: 'max-iterations', lambda: [] },
  });
  if (!st.ok) throw new Error(st.reason);
  const target = new Float64Array(6 * after.length);
  for (let i = 0; i < after.length; i++) {
    if (header.bodies[i].static) continue;
    for (let q = 0; q < 3; q++) {
      target[6 * i + q] = after[i].v[q] - pre[i].v[q];
      target[6 * i + 3 + q] = after[i].w[q] - pre[i].w[q];
    }
  }
  return Array.from(fitLambda(st.bodies, contacts.map(toContactPoint), target, fixedNormals));
}
