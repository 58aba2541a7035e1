import { RecordingReader } from '../src/format/recordingFile.js';
import { Diagnoser } from '../src/session/diagnose.js';
const r = RecordingReader.openSync(process.argv[2]);
const d = new Diagnoser(r.header, { counterfactuals: process.argv[4] !== 'nocf' });
const want = new Set(process.argv[3].split(',').map(Number));
for (let i = 0; i < r.frameCount; i++) { const f = r.frame(i); d.add(f); if (want.has(f.frame)) { const L = d.frames.at(-1)!.ledger; console.log(f.frame, 'dE', L.delta.toExponential(3), 'n', L.normal.toExponential(3), 'fr', L.friction.toExponential(3), 'stab', L.stabilisation.toExponential(3), 'ex', L.excess.toExponential(3), 'pc', L.positionCorrection.toExponential(3), 'int', L.integrator.toExponential(3), 'unx', L.unexplained.toExponential(3), [...d.frames.at(-1)!.injected].map(([k,v])=>k+' '+v.toExponential(2)).join(';'));
 for (const x of d.findings.filter((x) => x.frame === f.frame)) console.log('   ', x.mechanism, x.joules.toExponential(2), x.explanation.slice(0, 300)); } }
