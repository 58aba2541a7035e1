/**
 * One scenario in every engine (docs/compare.md "Comparing engines"), the table cross-engine studies make
 * (Erez, Tassa & Todorov 2015, "Simulation tools for model-based robotics"; SimBenchmark): one row per engine with
 * the energy drift, the joules injected by mechanism, the deepest penetration, jitter, cone violations,
 * iterations and step time (engineStats.ts), and where the engine's run first parts from ours (`diff`,
 * compare/compareFiles.ts). Each run is written as a recording (to a folder the caller names, or a temporary one),
 * so that it can be opened, diffed and compared in the inspector.
 */
import { blowUpMessage } from '../runScenario.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ScenarioDesc } from '../../engine/index.js';
import { World } from '../../engine/index.js';
import { RecordingWriter } from '../../format/recordingFile.js';
import type { DiagnosisOptions } from '../diagnose.js';
import { compareFiles } from '../compare/compareFiles.js';
import type { DivergenceKind } from '../compare/classify.js';
import { EngineUnavailableError, ENGINE_PACKAGES } from './enginePackages.js';
import { startEngineRun } from './engineRun.js';
import { EngineStatsBuilder, type EngineStats } from './engineStats.js';
import { ENGINE_NAMES, type EngineName } from './types.js';

export interface EngineRow {
  readonly engine: EngineName;
  /** "Contact Lens (coulomb)", "cannon-es 0.20.0", … */
  readonly title: string;
  /** ok; unavailable (the package is not installed: `error` says how to get it); failed (the run threw). */
  readonly status: 'ok' | 'unavailable' | 'failed';
  readonly error?: string;
  readonly stats?: EngineStats;
  /** The run's recording (absent when it did not run). */
  readonly recording?: string;
  /** Where the run first parts from ours (null: it does not; absent for ours and runs that did not happen). */
  readonly divergence?: { readonly frame: number; readonly time: number; readonly kind: DivergenceKind; readonly field: string } | null;
  /** What the engine could not reproduce of the scene. */
  readonly notes: readonly string[];
}

export interface EngineTable {
  readonly scenario: string;
  readonly frames: number;
  readonly initialEnergy: number;
  /** Where the recordings are. */
  readonly dir: string;
  readonly rows: readonly EngineRow[];
}

export interface EngineTableOptions {
  readonly engines?: readonly EngineName[];
  /** Folder for the recordings (created; files `<scenario>.<engine>.rec.jsonl`, replaced); default: a new temporary folder. */
  readonly dir?: string;
  readonly diagnosis?: Partial<DiagnosisOptions>;
  readonly frames?: number;
  /** Progress: the engine and the fraction of its frames done. */
  readonly onProgress?: (engine: EngineName, fraction: number) => void;
  readonly signal?: AbortSignal;
}

/** A recording's file name for a scenario and an engine (the scenario name made safe for a file name). */
export function recordingName(scenario: string, engine: EngineName): string {
  return `${scenario.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)}.${engine}.rec.jsonl`;
}

async function runOne(desc: ScenarioDesc, engine: EngineName, file: string, initialEnergy: number, options: EngineTableOptions): Promise<EngineRow> {
  let run: Awaited<ReturnType<typeof startEngineRun>>;
  try {
    run = await startEngineRun(engine, desc, options.frames !== undefined ? { frames: options.frames } : {});
  } catch (e) {
    const unavailable = e instanceof EngineUnavailableError;
    const title = engine === 'ours' ? 'Contact Lens' : ENGINE_PACKAGES[engine].title;
    return { engine, title, status: unavailable ? 'unavailable' : 'failed', error: (e as Error).message, notes: [] };
  }
  const producer = run.header.producer;
  const title = engine === 'ours' ? `Contact Lens (${desc.config.solver.solver})` : `${producer.name} ${producer.version ?? ''}`.trim();
  const stats = new EngineStatsBuilder(run.header, initialEnergy, options.diagnosis);
  const writer = RecordingWriter.create(file, run.header, { force: true });
  try {
    for (let k = 0; k < run.frames; k++) {
      options.signal?.throwIfAborted();
      const next = run.next();
      if (!next) break; // the run blew up: the table is of the frames before it (said in the notes)
      writer.writeFrame(next.frame);
      stats.add(next.frame, next.stepMs);
      if (k % 10 === 9) options.onProgress?.(engine, (k + 1) / run.frames);
    }
  } catch (e) {
    if (options.signal?.aborted) throw e;
    return { engine, title, status: 'failed', error: (e as Error).message, notes: run.notes };
  } finally {
    writer.close();
    run.dispose();
  }
  const notes = run.blowUp ? [...run.notes, blowUpMessage(run.blowUp)] : run.notes;
  return { engine, title, status: 'ok', stats: stats.result(), recording: file, notes };
}

/** Runs the scenario in each engine (all five by default), one after the other, and compares each run with ours. */
export async function compareEngines(desc: ScenarioDesc, options: EngineTableOptions = {}): Promise<EngineTable> {
  const engines = options.engines ?? ENGINE_NAMES;
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-engines-'));
  fs.mkdirSync(dir, { recursive: true });
  const initialEnergy = new World(desc).totalEnergy();
  const rows: EngineRow[] = [];
  for (const engine of engines) rows.push(await runOne(desc, engine, path.join(dir, recordingName(desc.name, engine)), initialEnergy, options));
  const ours = rows.find((r) => r.engine === 'ours' && r.recording);
  const withDivergence = rows.map((r): EngineRow => {
    if (!ours || r === ours || !r.recording) return r;
    const f = compareFiles(ours.recording!, r.recording).firstDivergence;
    return { ...r, divergence: f ? { frame: f.frame, time: f.time, kind: f.kind, field: f.field } : null };
  });
  return { scenario: desc.name, frames: options.frames ?? desc.frames, initialEnergy, dir, rows: withDivergence };
}
