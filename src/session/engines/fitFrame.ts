/**
 * λ of one recorded frame fitted to the engine's own velocity change (fitLambda.ts), for recorders whose
 * engine hides some or all impulses (Jolt: all; Rapier: the friction impulses), and the recording header of an
 * engine scene (its bodies as the format writes them).
 */
import type { RecordedBody, RecordedBodyState, RecordedContact, RecordedPreState, RecordingHeader } from '../../format/recording.js';
import { CONVENTIONS, preSolveBodyStates, toContactPoint } from '../../format/recording.js';
import { fitLambda } from './fitLambda.js';
import type { EngineScene } from './types.js';

/** The header bodies of an engine scene, in its order (static bodies: mass and inertia null). */
export function sceneBodies(scene: EngineScene): RecordedBody[] {
  return scene.bodies.map((b) =>
    b.static
      ? { name: b.name, shape: b.shape, mass: null, inertia: null, static: true }
      : { name: b.name, shape: b.shape, mass: b.mass, inertia: b.inertia, static: false },
  );
}

/** A header with the scene's bodies (masses, inertias): what preSolveBodyStates needs for the fit. */
export function sceneHeader(scene: EngineScene, name: string): RecordingHeader {
  return {
    format: 'contact-lens-recording',
    version: 1,
    producer: { name },
    units: 'SI',
    conventions: CONVENTIONS,
    dt: scene.dt,
    gravity: scene.gravity,
    bodies: sceneBodies(scene),
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
