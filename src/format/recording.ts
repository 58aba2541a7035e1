/**
 * Recording format, version 1 (docs/recording-format.md; schemas/recording-*.schema.json).
 *
 * JSON Lines, UTF-8: line 1 is the header (bodies, conventions, dt, gravity, solver), every further
 * non-blank line is one frame (post-step body states, pre-solve velocities, contacts, λ, solver status,
 * optional A and b, energy). Pure: no Node imports (the readers/writers that touch files are in
 * recordingFile.ts).
 *
 * The entry point other layers import; the work is split by job:
 *   recordingTypes.ts    types and constants
 *   recordingJson.ts     one JSON line in and out (serialisation; NaN/Infinity tokens named by field)
 *   recordingValidate.ts header and frame validation, on the shared field reader (fieldReader.ts)
 *   recordingConvert.ts  conversion for consumers (shapes, contact points, inertia, pre-solve states)
 */
export * from './recordingTypes.js';
export { parseJsonLine, serializeFrame, serializeHeader, serializeInitial, toJsonLine } from './recordingJson.js';
export { frameFromValue, isInitialLine, parseFrame, parseHeader, validateFrame, validateHeader, validateInitial } from './recordingValidate.js';
export { frameMaxima, fromShapeDesc, inverseInertiaBody, preSolveBodyStates, toContactPoint, toShapeDesc, worldInverseInertia } from './recordingConvert.js';
