import { RecordingReader } from '../src/format/recordingFile.js';
import { diagnose } from '../src/session/diagnose.js';
const r = RecordingReader.openSync(process.argv[2] ?? 'examples/foreign-engine.rec.jsonl');
const frames = Array.from({ length: r.frameCount }, (_, i) => r.frame(i));
for (const f of diagnose(r.header, frames)) console.log(f.frame, f.kind, f.severity, f.mechanism, f.joules.toExponential(3), f.contacts.join(','), f.explanation.slice(0, 400));
