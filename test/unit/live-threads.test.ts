/**
 * The live threads' priorities (Linux): a stream's diagnosis thread runs below the others (nice + DIAGNOSIS_NICE),
 * so that on a busy machine the writer's socket is drained and the frames are shown first; the process and its
 * other threads keep theirs.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { startDiagnosisThread } from '../../src/extension/live/diagnosisLink.js';
import { DIAGNOSIS_NICE } from '../../src/extension/live/threadPriority.js';
import { until } from '../live/harness.js';

/** Nice value of each thread of this process (/proc/self/task/TID/stat, field 19). */
function niceByThread(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

describe('live: thread priorities', function () {
  this.timeout(120_000);
  it('the diagnosis thread lowers its own priority by DIAGNOSIS_NICE; the process and its main thread keep theirs', async function () {
    if (os.platform() !== 'linux') this.skip();
    const before = niceByThread();
    const base = os.getPriority(process.pid);
    const worker = startDiagnosisThread();
    try {
      const lowered = await until(() => {
        const now = niceByThread();
        const tid = [...now.keys()].find((t) => !before.has(t) && now.get(t) === Math.min(19, base + DIAGNOSIS_NICE));
        return tid ?? false;
      }, 'a new thread at the lowered priority');
      assert.ok(lowered > 0);
      assert.equal(os.getPriority(process.pid), base, "the process's main thread keeps its priority");
      for (const [tid, nice] of niceByThread()) if (before.has(tid)) assert.equal(nice, before.get(tid), `thread ${tid} kept its priority`);
    } finally {
      await worker.terminate();
    }
  });
});
