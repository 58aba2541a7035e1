import { RecordingReader } from '../src/format/recordingFile.js';
import { Diagnoser, frameEnergy } from '../src/session/diagnose.js';
const truth: Record<string, string[]> = { cannon: ['bias-injection', 'overlap-push-out'], jolt: ['non-converged-solve'], mujoco: ['bias-injection', 'overlap-push-out'], bullet: ['bias-injection', 'overlap-push-out', 'non-converged-solve'] };
for (const e of Object.keys(truth)) {
  const r = RecordingReader.openSync(`/tmp/peers/${e}-stack.rec.jsonl`);
  const d = new Diagnoser(r.header, { counterfactualTotalMs: Infinity, counterfactualBudgetMs: Infinity });
  let prev: number | undefined; const rising: number[] = [];
  for (let i = 0; i < r.frameCount; i++) { const f = r.frame(i); const en = frameEnergy(r.header, f); if (prev !== undefined && en - prev > 1e-3) rising.push(f.frame); prev = en; d.add(f); }
  let agree = 0; const bad: string[] = [];
  for (const fr of rising) { const inj = d.findings.filter((x) => x.frame === fr && x.kind === 'injection').sort((a, b) => b.joules - a.joules); if (inj[0] && truth[e].includes(inj[0].mechanism)) agree++; else bad.push(`${fr}:${inj[0]?.mechanism}`); }
  console.log(e, 'rising', rising.length, 'agree', agree, bad.slice(0, 12).join(' '));
}
