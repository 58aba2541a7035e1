import { RecordingReader } from '../src/format/recordingFile.js';
import { Diagnoser } from '../src/session/diagnose.js';
const r = RecordingReader.openSync(process.argv[2]);
const d = new Diagnoser(r.header, { counterfactualTotalMs: 1e9, counterfactualBudgetMs: 1e9 });
const c0 = process.cpuUsage(); const t0 = performance.now();
for (let i = 0; i < r.frameCount; i++) d.add(r.frame(i));
const c1 = process.cpuUsage(c0);
console.log('wall', (performance.now() - t0).toFixed(0), 'ms; cpu', ((c1.user + c1.system) / 1000).toFixed(0), 'ms; cf frames', d.cost.frames, 'islands', d.cost.islands, 'cf wall ms', d.cost.ms.toFixed(0));
