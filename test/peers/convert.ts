/** The recorders' conventions helpers live with the engines in src/session/engines/convert.ts (re-exported for the Bullet recorder and tests). */
export { contactFrame, impulseInFrame, xyzwToWxyz, yUpQuatToZUp, yUpToZUp, zUpQuatToYUp, zUpToYUp } from '../../src/session/engines/convert.js';
