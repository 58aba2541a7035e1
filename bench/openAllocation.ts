/**
 * openAllocation — what the inspector's first open of a recording allocates (V8's sampling heap profiler over the
 * whole open, cache off): the total and the functions that allocate most, and the heat-map encoding of one busy
 * frame's islands, dense beside block-wise (the same levels are checked).
 *
 *   npx tsx bench/openAllocation.ts RECORDING [FRAME]      (FRAME: default the frame nearest 3 800 contacts)
 *
 * The total counts every object allocated during the open, collected or not (sampled every 64 KiB); it is what
 * drives the young generation's collections. Not a test: the figures go to docs/benchmarks.md.
 */
import { Session } from 'node:inspector/promises';
import { InspectorModel } from '../src/extension/model/inspectorModel.js';
import { encodeHeatMap, encodeHeatMapBlockRows } from '../src/protocol/heatMap.js';
import { machineInfo } from './common.js';

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

const MB = 1e6;

async function main(): Promise<void> {
  const [file, frameArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: npx tsx bench/openAllocation.ts RECORDING [FRAME]');
  const m0 = machineInfo();
  console.log(`Open allocation — ${m0.cpu} × ${m0.cores}, ${m0.platform}, Node ${m0.node}, load ${m0.loadAverage.toFixed(1)}, ${m0.date}`);
  const s = new Session();
  s.connect();
  await s.post('HeapProfiler.startSampling', { samplingInterval: 65536, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const t0 = performance.now();
  const m = await InspectorModel.fromRecording(file, {}, undefined, undefined, { mode: 'off' });
  const wall = performance.now() - t0;
  const { profile } = (await s.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
  const self = new Map<string, number>();
  let total = 0;
  const walk = (n: ProfileNode): void => {
    const name = `${n.callFrame.functionName || '(anonymous)'} (${n.callFrame.url.split('/').pop() || 'builtin'})`;
    total += n.selfSize;
    self.set(name, (self.get(name) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  console.log(`  ${file}: open ${(wall / 1000).toFixed(1)} s (under the profiler), ${m.info.frameCount} frames, ${m.findings.length} findings`);
  console.log(`  allocated during the open: ${(total / MB).toFixed(0)} MB; the functions that allocate most (MB):`);
  for (const [name, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`    ${(bytes / MB).toFixed(0).padStart(6)}  ${name}`);

  // one busy frame's heat maps: every island with an assembled A, dense and from its blocks
  const contacts = m.timeline.contacts;
  let near = 0;
  for (let i = 1; i < contacts.length; i++) if (Math.abs(contacts[i] - 3800) < Math.abs(contacts[near] - 3800)) near = i;
  const frame = frameArg !== undefined ? Number(frameArg) : near;
  const islands = m.session.detail(frame, { conditioning: 'none' }).islands.filter((isl) => isl.blocks !== undefined);
  if (islands.length === 0) {
    console.log(`  frame ${frame}: no island with its Delassus blocks (a build before encodeHeatMapBlockRows)`);
    return m.close();
  }
  let entries = 0;
  for (const isl of islands) entries += isl.problem!.size ** 2;
  const time = (f: () => void): number => {
    const xs: number[] = [];
    for (let r = 0; r < 15; r++) {
      const t = performance.now();
      f();
      xs.push(performance.now() - t);
    }
    return xs.sort((a, b) => a - b)[7];
  };
  const dense = time(() => {
    for (const isl of islands) encodeHeatMap(isl.problem!.A, isl.problem!.size);
  });
  const blocks = time(() => {
    for (const isl of islands) encodeHeatMapBlockRows(isl.blocks!);
  });
  let same = true;
  for (const isl of islands) {
    const p = isl.problem!;
    const a = encodeHeatMap(p.A, p.size),
      b = encodeHeatMapBlockRows(isl.blocks!);
    same &&= a.maxAbs === b.maxAbs && a.nonFinite === b.nonFinite && a.levels.every((v, k) => v === b.levels[k]);
  }
  console.log(
    `  frame ${frame} (${contacts[frame]} contacts): heat maps of its ${islands.length} assembled islands (${entries} entries of A), median of 15: dense ${dense.toFixed(2)} ms, from its blocks ${blocks.toFixed(2)} ms; the same levels: ${same ? 'yes' : 'NO'}`,
  );
  m.close();
}

void main();
