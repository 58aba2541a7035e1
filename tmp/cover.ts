import { RecordingReader } from '../src/format/recordingFile.js';
import { Diagnoser, frameEnergy } from '../src/session/diagnose.js';
for (const file of process.argv.slice(2)) {
  const r = RecordingReader.openSync(file);
  const d = new Diagnoser(r.header, { counterfactualTotalMs: Infinity, counterfactualBudgetMs: Infinity });
  const t0 = performance.now();
  let prevE: number | undefined; const rising: number[] = [];
  for (let i = 0; i < r.frameCount; i++) { const f = r.frame(i); const e = frameEnergy(r.header, f); if (prevE !== undefined && e - prevE > 1e-3) rising.push(f.frame); prevE = e; d.add(f); }
  const ms = performance.now() - t0;
  const inj = d.findings.filter((f) => f.kind === 'injection');
  const covered = rising.filter((fr) => inj.some((f) => f.frame === fr)).length;
  const mech = new Map<string, number>(); for (const f of d.findings) mech.set(`${f.kind[0]}:${f.mechanism}`, (mech.get(`${f.kind[0]}:${f.mechanism}`) ?? 0) + 1);
  const j = new Map<string, number>(); for (const f of inj) j.set(f.mechanism, (j.get(f.mechanism) ?? 0) + f.joules);
  console.log(`${file.split('/').pop()}: ${r.frameCount} fr, rising>1mJ ${rising.length}, covered ${covered}; ${[...mech].map(([k, v]) => `${k}×${v}`).join(' ')} | J: ${[...j].map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ')} | cons ${d.consistency ? d.consistency.frames + '/' + d.consistency.checked + ' ' + d.consistency.bug : 'ok'} | ${ms.toFixed(0)} ms (cf ${d.cost.ms.toFixed(0)} ms, ${d.cost.frames} fr)`);
  r.close();
}
