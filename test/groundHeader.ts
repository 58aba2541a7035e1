/** Recording headers for tests: our conventions, SI, gravity −g along z, the ground plane z = 0 as body 0. */
import { CONVENTIONS, type RecordedBody, type RecordingHeader } from '../src/format/recording.js';

export const GROUND: RecordedBody = { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, mass: null, inertia: null, static: true };

/** A header with the ground, then `bodies`; `solver` as the header declares it. */
export function groundHeader(dt: number, g: number, bodies: readonly RecordedBody[], solver: RecordingHeader['solver']): RecordingHeader {
  return {
    format: 'contact-lens-recording',
    version: 1,
    producer: { name: 'test' },
    units: 'SI',
    conventions: CONVENTIONS,
    dt,
    gravity: [0, 0, -g],
    bodies: [GROUND, ...bodies],
    solver,
  };
}
