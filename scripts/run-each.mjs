#!/usr/bin/env node
// `node scripts/run-each.mjs script…`: runs each npm script in turn, also after one fails, then prints one
// line per script and exits 1 if any failed (npm run test:editor: the VS Code suite and the end-to-end suite
// both run and both are reported, where `a && b` would skip b after a failure).
import { spawnSync } from 'node:child_process';

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  console.error('usage: node scripts/run-each.mjs <npm script>…');
  process.exit(2);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const results = [];
for (const s of scripts) {
  const t0 = Date.now();
  const r = spawnSync(npm, ['run', s], { stdio: 'inherit' });
  const code = r.status ?? (r.signal ? `signal ${r.signal}` : 'not started');
  results.push({ s, ok: r.status === 0, code, seconds: (Date.now() - t0) / 1000 });
  if (r.signal === 'SIGINT' || r.signal === 'SIGTERM') break; // the user stopped it: do not start the next one
}
console.log('');
for (const r of results) console.log(`${r.ok ? 'passed' : 'FAILED'}  npm run ${r.s}  (${r.ok ? 'exit 0' : `exit ${r.code}`}, ${r.seconds.toFixed(0)} s)`);
for (const s of scripts.slice(results.length)) console.log(`not run  npm run ${s}  (stopped)`);
process.exit(results.length === scripts.length && results.every((r) => r.ok) ? 0 : 1);
