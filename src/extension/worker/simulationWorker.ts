/**
 * The simulation worker (worker_threads): hosts the engine, one inspector model at a time, and scenario
 * checks, so the extension host's event loop never runs a simulation. Requests are answered in order;
 * long ones post progress. Cancelling = the host terminates the worker.
 */
import { parentPort } from 'node:worker_threads';
import { parseSceneFile } from '../../format/scene.js';
import { analyzeScene } from '../model/analyzeScene.js';
import { FormatError } from '../../format/oracle.js';
import { frameFromWorld } from '../../format/worldRecording.js';
import { runScenario } from '../../session/runScenario.js';
import { checkAll } from '../../session/expectations.js';
import { scenarioDiagnosis } from '../../session/diagnosisRun.js';
import type { ScenarioDesc, SolveOptions, World } from '../../engine/index.js';
import { InspectorModel, toFindingView } from '../model/inspectorModel.js';
import { openProblemView } from '../model/problemView.js';
import { LiveHub } from '../live/liveHub.js';
import type { CompareRun, ScenarioCheck, SolverOverride, WorkerEnvelope, WorkerReply, WorkerRequest, WorkerResults } from './workerProtocol.js';
import { CompareModel } from '../model/compareModel.js';
import { enginesView } from '../model/enginesView.js';
import { Session } from '../../session/session.js';
import { compareEngines, type EngineTable } from '../../session/engines/engineTable.js';
import { INSPECTOR_CHECKPOINT_EVERY } from '../model/inspectorModel.js';

if (!parentPort) throw new Error('simulationWorker.ts must run in a worker thread');
const port = parentPort;
let model: InspectorModel | null = null;
/** Compare mode: the second run beside the model's session (null: not comparing). */
let compare: CompareModel | null = null;
/** The open scenario's five-engine table (its recordings are compare mode's engine runs). */
let engines: EngineTable | null = null;

/** Opens compare mode's second run as a session. */
async function openRun(run: CompareRun): Promise<{ session: Session; title: string; file: string }> {
  switch (run.kind) {
    case 'recording':
      return { session: await Session.openRecording(run.file), title: run.file.split(/[\\/]/).pop() ?? run.file, file: run.file };
    case 'scenario': {
      const [s] = scenarioNamed(run.file, run.text, run.scenario);
      const desc = applyOverride(s.desc, { ...run.override, solver: run.solver });
      return { session: Session.fromScenario(desc, { checkpointEvery: INSPECTOR_CHECKPOINT_EVERY }), title: `${desc.name} (${run.solver})`, file: run.file };
    }
    case 'engine': {
      const row = engines?.rows.find((r) => r.engine === run.engine);
      if (!row?.recording) throw new Error(`no run of engine "${run.engine}" to compare with: run ⚖ Compare engines first`);
      return { session: await Session.openRecording(row.recording), title: row.title, file: row.recording };
    }
  }
}

/** The scenario with the user's solver settings applied (a different solver keeps its own defaults). */
export function applyOverride(desc: ScenarioDesc, o: SolverOverride): ScenarioDesc {
  if (!o.solver && o.maxIterations === undefined && o.tolerance === undefined) return desc;
  const base: SolveOptions = o.solver && o.solver !== desc.config.solver.solver ? ({ solver: o.solver } as SolveOptions) : desc.config.solver;
  const solver = {
    ...base,
    ...(o.maxIterations !== undefined ? { maxIterations: o.maxIterations } : {}),
    ...(o.tolerance !== undefined ? { tolerance: o.tolerance } : {}),
  } as SolveOptions;
  return { ...desc, config: { ...desc.config, solver } };
}

function scenarioNamed(file: string, text: string, name: string | null): ReturnType<typeof parseSceneFile>['scenarios'] {
  const { scenarios } = parseSceneFile(text, file);
  if (name === null) return scenarios;
  const s = scenarios.filter((x) => x.desc.name === name);
  if (s.length === 0)
    throw new FormatError(file, 'scenarios', `no scenario named "${name}" (the file has ${scenarios.map((x) => `"${x.desc.name}"`).join(', ')})`);
  return s;
}

/** Live sessions of this worker: a recording followed as it grows, or writers streaming (src/extension/live/). */
const live = new LiveHub((event) => port.postMessage({ id: 0, kind: 'event', event } satisfies WorkerReply));

function currentModel(): InspectorModel {
  const m = live.model ?? model;
  if (!m) throw new Error('no session is open in this worker');
  return m;
}

async function handle(id: number, r: WorkerRequest): Promise<WorkerResults[WorkerRequest['op']]> {
  const progress = (message: string, fraction: number | null): void => port.postMessage({ id, kind: 'progress', message, fraction } satisfies WorkerReply);
  switch (r.op) {
    case 'openScenario': {
      const [s] = scenarioNamed(r.file, r.text, r.scenario);
      compare?.close();
      compare = null;
      model?.close();
      model = InspectorModel.fromScenario(applyOverride(s.desc, r.override), r.file, r.diagnosis, progress);
      return { info: model.info, timeline: model.timeline, findings: model.findings, skipped: model.skipped, scene: model.scene };
    }
    case 'openRecording': {
      compare?.close();
      compare = null;
      model?.close();
      // the recording's sidecar cache: beside it, or in the extension's storage (a second open reads no frame), with
      // the frame store that makes seeks decode instead of parse unless the setting says no
      const cache = { mode: 'auto', dir: r.cacheDir ?? null, frameStore: r.frameStore !== false } as const;
      model = await InspectorModel.fromRecording(r.file, r.diagnosis, progress, undefined, cache);
      let skipped = model.skipped;
      if (r.follow && model.canGrow) {
        live.follow(model, r.file, r.diagnosis);
        // a last line still being written is waited for, not reported
        skipped = skipped.filter((m) => !/the last line is incomplete/.test(m));
      }
      return { info: model.info, timeline: model.timeline, findings: model.findings, skipped, scene: model.scene };
    }
    case 'listen':
      return live.listen(r.folder, r.diagnosis);
    case 'live':
      live.action(r.action);
      return null;
    case 'stopLive':
      await live.close();
      return null;
    case 'liveLoad':
      return live.load(r.reset);
    case 'openProblem':
      // one frame, no session: the view is complete (every solver solved) when it is returned
      return openProblemView(r.path, r.file, progress);
    case 'frame': {
      // a live stream's frame views come from a thread of their own: this one goes on reading the stream
      const view = (await live.frameView(r.index)) ?? currentModel().frameView(r.index);
      return compare ? { ...view, compare: compare.frameCompare(r.index) } : view;
    }
    case 'conditioning':
      return (await live.conditioning(r.index)) ?? currentModel().conditioning(r.index);
    case 'compareWith': {
      const a = currentModel();
      const run = await openRun(r.run);
      progress(`comparing with ${run.title}`, 0);
      compare?.close();
      compare = null;
      compare = new CompareModel(a.session, run.session, { title: run.title, file: run.file }, (f) => progress(`comparing with ${run.title}`, f));
      return compare.view;
    }
    case 'crossWhatIf': {
      if (!compare) throw new Error('no second run to compare with');
      return compare.crossWhatIf(r.index, r.direction);
    }
    case 'engines': {
      const [s] = scenarioNamed(r.file, r.text, r.scenario);
      const desc = applyOverride(s.desc, r.override);
      engines = await compareEngines(desc, { onProgress: (engine, f) => progress(`${desc.name} in ${engine}`, f) });
      return enginesView(engines);
    }
    case 'series':
      return currentModel().series(r.keys);
    case 'whatIf':
      return currentModel().whatIf(r.index, r.options);
    case 'exportFrame':
      return currentModel().exportFrame(r.index, r.format);
    case 'analyzeScene':
      return analyzeScene(r.file, r.text);
    case 'check': {
      const out: ScenarioCheck[] = [];
      for (const s of scenarioNamed(r.file, r.text, r.scenario)) {
        const desc = applyOverride(s.desc, r.override);
        const t0 = performance.now();
        const diag = scenarioDiagnosis(desc, r.diagnosis).diagnoser;
        const every = Math.max(1, Math.floor(desc.frames / 20));
        const run = runScenario(desc, {
          onFrame: (world: World, f) => {
            diag.add(frameFromWorld(world, f));
            const done = f.frame + 1; // frames are numbered from 0
            if (done % every === 0) progress(`${desc.name}: frame ${f.frame} / ${desc.frames}`, done / desc.frames);
          },
        });
        // a scenario's frame k (numbered from 0) is its session index k
        const findings = diag.findings.map((x) => toFindingView(x, x.frame));
        const results = checkAll(s.expectations, run);
        out.push({
          scenario: desc.name,
          range: s.range,
          expectationRanges: s.expectationRanges,
          frames: run.frames.length,
          timeMs: performance.now() - t0,
          expectations: results.map((x, index) => ({
            kind: x.expectation.kind,
            ok: x.ok,
            message: x.message,
            index,
            ...(x.frame !== undefined ? { frame: x.frame } : {}),
          })),
          findings,
          energyChange: (run.frames.at(-1)?.totalEnergy ?? run.initialEnergy) - run.initialEnergy,
        });
      }
      return out;
    }
  }
}

port.on('message', (m: WorkerEnvelope) => {
  void (async () => {
    try {
      const result = await handle(m.id, m.request);
      port.postMessage({ id: m.id, kind: 'result', result } satisfies WorkerReply);
    } catch (e) {
      const err = e as Error & { field?: string; file?: string };
      const reply: WorkerReply = {
        id: m.id,
        kind: 'error',
        message: err.message ?? String(e),
        ...(err instanceof FormatError ? { field: err.field, file: err.file } : {}),
      };
      port.postMessage(reply);
    }
  })();
});
