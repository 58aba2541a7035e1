import { RecordingReader } from '../src/format/recordingFile.js';
import { Diagnoser } from '../src/session/diagnose.js';
const r = RecordingReader.openSync(process.argv[2]);
const d = new Diagnoser(r.header, { counterfactualTotalMs: Infinity, counterfactualBudgetMs: Infinity });
for (let i = 0; i < r.frameCount; i++) d.add(r.frame(i));
console.log(d.consistency);
const errs = d.findings.filter((f) => f.severity === 'error');
console.log(errs.length, 'errors; inconsistent-marked', errs.filter((f) => f.inconsistent).length, errs.slice(0, 3).map((f) => f.frame + ' ' + f.mechanism + ' ' + f.joules.toExponential(2) + ' ' + f.explanation.slice(0, 200)));
