/**
 * Frame-view assembly benchmark (prints, not a test):
 *   npx tsx bench/frameAssembly.ts RECORDING.rec.jsonl [--frame N] [--base DIR]
 *
 * The part of the inspector's frame view that re-assembles one frame's islands and builds their views, with
 * the frame already parsed: frameDetail (session/frameDetail.ts, conditioning 'none' as the inspector asks),
 * denseProblem alone over the dense islands, and islandViews (heat maps and the inline conditioning). With
 * `--base DIR` (another checkout with the same modules, e.g. `git worktree add --detach /tmp/base main`) both
 * builds run in this process, interleaved round by round, so that they are measured in the same minutes;
 * the digest of every output (A, b, kinematics, every view field) says whether the builds agree bit for bit.
 * Prints CPU-time medians and the machine load. The default frame is 68, the pile recording's 3 804 contacts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { createHash } from 'node:crypto';
import { cpuMs, machineInfo } from './common.js';

interface Build {
  readonly label: string;
  readonly run: { detail: () => unknown; dense: () => void; views: () => unknown };
  readonly digest: string;
  readonly contacts: number;
  readonly times: { detail: number[]; dense: number[]; views: number[] };
}

/** Header and frame line `want` (0-based) of a recording, read line by line. */
async function frameLines(file: string, want: number, isInitial: (raw: unknown) => boolean): Promise<{ header: string; frame: string; lineNo: number }> {
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  let header: string | null = null,
    k = -1,
    lineNo = 0;
  try {
    for await (const line of rl) {
      lineNo++;
      if (header === null) header = line;
      else if (line.trim() !== '' && !isInitial(JSON.parse(line)) && ++k === want) return { header, frame: line, lineNo };
    }
  } finally {
    rl.close();
  }
  throw new Error(`${file}: no frame ${want}`);
}

/** JSON of each part, typed arrays as arrays and non-finite numbers spelled out: equal builds, equal digests. */
function digestOf(parts: readonly unknown[]): string {
  const h = createHash('sha256');
  const replacer = (_k: string, v: unknown): unknown =>
    typeof v === 'number' && !Number.isFinite(v) ? `#${v}` : ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v;
  for (const p of parts) h.update(JSON.stringify(p, replacer) ?? 'undefined');
  return h.digest('hex').slice(0, 16);
}

async function build(src: string, label: string, lines: { header: string; frame: string; lineNo: number }, file: string, index: number): Promise<Build> {
  const at = (p: string): string => path.join(path.resolve(src), 'src', p);
  const rec = await import(at('format/recording.ts'));
  const { frameDetail } = await import(at('session/frameDetail.ts'));
  const { recordingAssembly } = await import(at('session/frameSource.ts'));
  const { islandViews, pendingIslands } = await import(at('extension/model/islandViews.ts'));
  const { denseProblem } = await import(at('engine/assembly.ts'));
  const header = rec.parseHeader(lines.header, file).header;
  const frame = rec.parseFrame(lines.frame, lines.lineNo, file, header);
  const assembly = recordingAssembly(header);
  const detail = () => frameDetail({ index, header, frame, assembly, previous: () => null }, { conditioning: 'none' });
  const d = detail();
  type IslandFields = { problem: { A: Float64Array } | null; contacts: readonly number[] } & Record<
    'bodies' | 'b' | 'rhs' | 'mu' | 'lambda' | 'kinematics' | 'reason',
    unknown
  >;
  const dense = (d.islands as IslandFields[]).filter((isl) => isl.problem !== null);
  const denseInputs = dense.map((isl) => isl.contacts.map((k) => rec.toContactPoint(frame.contacts[k])));
  const engine = await import(at('engine/index.ts'));
  const pre = (await import(at('session/preSolve.ts'))).solveTimeBodies(header, frame);
  if (!pre.ok) throw new Error(`${file}: frame ${index} has no pre-solve state (${pre.reason})`);
  const jacobians = denseInputs.map((cs) => engine.assembleJacobians(pre.bodies, cs, assembly.options));
  const pending = pendingIslands(d, false);
  const views = () => islandViews(d, pending, false);
  return {
    label,
    run: {
      detail,
      dense: () => {
        for (let k = 0; k < jacobians.length; k++) denseProblem(jacobians[k], assembly.options.regularization);
      },
      views,
    },
    contacts: frame.contacts.length,
    // each island's fields, not the island object: its contact metas each reference the island's whole velocity column
    digest: digestOf([
      { ...d, islands: null },
      ...(d.islands as IslandFields[]).map((isl) => [
        isl.bodies,
        isl.contacts,
        isl.b,
        isl.rhs,
        isl.mu,
        isl.lambda,
        isl.kinematics,
        isl.problem?.A ?? null,
        isl.reason,
      ]),
      ...views(),
      ...jacobians.map((j) => denseProblem(j, assembly.options.regularization).A),
    ]),
    times: { detail: [], dense: [], views: [] },
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string): string | null => (args.includes(name) ? args[args.indexOf(name) + 1] : null);
  const file = args.find((a, k) => !a.startsWith('--') && !['--frame', '--base'].includes(args[k - 1] ?? ''));
  if (!file) throw new Error('usage: npx tsx bench/frameAssembly.ts RECORDING [--frame N] [--base DIR]');
  const index = Number(opt('--frame') ?? 68);
  const base = opt('--base');
  const { isInitialLine } = await import('../src/format/recording.js');
  const lines = await frameLines(file, index, isInitialLine);
  const builds = [...(base !== null ? [await build(base, 'base', lines, file, index)] : []), await build('.', 'this', lines, file, index)];
  const rounds = 25,
    warm = 5;
  for (let r = 0; r < rounds; r++) {
    for (const b of builds) {
      for (const part of ['detail', 'dense', 'views'] as const) {
        const t = cpuMs();
        b.run[part]();
        if (r >= warm) b.times[part].push(cpuMs() - t);
      }
    }
  }
  const med = (xs: number[]): string => [...xs].sort((a, b) => a - b)[xs.length >> 1].toFixed(1);
  const mi = machineInfo();
  console.log(`Frame assembly — ${mi.cpu} × ${mi.cores}, ${mi.platform}, Node ${mi.node}, load ${mi.loadAverage.toFixed(1)}, ${mi.date}`);
  console.log(`  ${file} frame ${index} (${builds[0].contacts} contacts): CPU ms, medians of ${rounds - warm} interleaved rounds (frame parsed once)`);
  for (const b of builds)
    console.log(
      `    ${b.label.padEnd(5)} frameDetail ${med(b.times.detail)}  (of which denseProblem of the dense islands ${med(b.times.dense)})  islandViews ${med(b.times.views)}  digest ${b.digest}`,
    );
  if (builds.length === 2) console.log(`    ${builds[0].digest === builds[1].digest ? 'the same' : 'DIFFERENT'} detail, A and island views in both builds`);
}

void main();
