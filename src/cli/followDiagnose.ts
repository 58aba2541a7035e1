/**
 * `contact-lens diagnose --follow <rec.jsonl> [--idle-exit S]`: diagnoses a recording while its engine is still
 * writing it, and prints each finding as soon as its frame line is complete (docs/recording-format.md
 * "Following a recording as it is written"). It ends when the writer writes the closing line, after S seconds
 * without growth (--idle-exit), or on Ctrl-C; a half-written last line is waited for, and only reported when
 * following ends without it.
 */
import * as fs from 'node:fs';
import { RecordingFollower } from '../format/recordingFollow.js';
import { FormatError, MAX_FIELD_CHARS, safeText } from '../format/messages.js';
import { Diagnoser, type Finding } from '../session/diagnose.js';
import { BATCH_DIAGNOSIS } from '../session/diagnosisRun.js';
import { formatCount } from '../engine/index.js';
import type { Output } from './output.js';
import { FileError, describeFsError } from './output.js';

/** How often the file is checked for growth (ms). */
export const FOLLOW_POLL_MS = 50;

export interface FollowOptions {
  readonly json: boolean;
  /** Stop after this many seconds without growth (undefined: only the closing line or Ctrl-C stop). */
  readonly idleExitS?: number;
  /** Called with every finding as it is printed (tests). */
  readonly onFinding?: (f: Finding) => void;
  /** Stops following (Ctrl-C); the default installs a SIGINT handler for the run. */
  readonly signal?: AbortSignal;
}

export interface FollowResult {
  readonly findings: readonly Finding[];
  readonly frames: number;
  readonly skippedLines: number;
  readonly why: 'closed' | 'idle' | 'interrupted' | 'failed';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Prints one finding the way `diagnose --follow` does (text: severity and the diagnosis' headline; --json: findingJson). */
export type FindingPrinter = (f: Finding) => string;

export async function followDiagnose(file: string, io: Output, options: FollowOptions, print: FindingPrinter): Promise<FollowResult> {
  const name = safeText(file, 2 * MAX_FIELD_CHARS);
  const ctrlC = new AbortController();
  const onSigint = (): void => ctrlC.abort();
  if (!options.signal) process.once('SIGINT', onSigint);
  const stopped = (): boolean => (options.signal ?? ctrlC.signal).aborted;
  const idleMs = options.idleExitS === undefined ? Infinity : options.idleExitS * 1000;
  let lastGrowth = Date.now();
  try {
    // the engine may not have created the file yet
    while (!fs.existsSync(file)) {
      if (stopped()) return { findings: [], frames: 0, skippedLines: 0, why: 'interrupted' };
      if (Date.now() - lastGrowth > idleMs) throw new FileError(name, `did not appear within ${options.idleExitS} s (--idle-exit)`);
      await sleep(FOLLOW_POLL_MS);
    }
    let follower: RecordingFollower;
    try {
      follower = RecordingFollower.open(file);
    } catch (e) {
      if (e instanceof FormatError) throw e;
      throw new FileError(name, describeFsError('read', e));
    }
    io.err(`following ${name}${options.idleExitS === undefined ? '' : ` (stops after ${options.idleExitS} s without growth)`}; Ctrl-C stops`);
    let diagnoser: Diagnoser | null = null;
    let printed = 0,
      skipped = 0,
      frames = 0;
    try {
      for (;;) {
        const before = follower.position;
        const events = follower.poll();
        if (follower.position > before) lastGrowth = Date.now();
        for (const e of events) {
          switch (e.kind) {
            case 'header':
              for (const w of e.warnings) io.err(`warning: ${w}`);
              break;
            case 'frame':
              diagnoser ??= new Diagnoser(follower.header!, BATCH_DIAGNOSIS);
              diagnoser.add(e.frame);
              frames++;
              for (; printed < diagnoser.findings.length; printed++) {
                const f = diagnoser.findings[printed];
                io.out(print(f));
                options.onFinding?.(f);
              }
              break;
            case 'skipped':
              skipped++;
              io.err(`skipped ${e.message}`);
              break;
            case 'fatal':
            case 'truncated':
              io.err(`contact-lens: ${e.message}`);
              return { findings: diagnoser?.findings ?? [], frames, skippedLines: skipped, why: 'failed' };
            default:
              break;
          }
        }
        const end = follower.end;
        if (end) {
          const lost = end.frames - follower.frameCount;
          io.err(
            `${name}: closed by the writer after ${formatCount(end.frames, 'frame')}${lost > 0 ? `; ${formatCount(lost, 'frame')} of them could not be read (skipped lines above)` : ''}`,
          );
          return { findings: diagnoser?.findings ?? [], frames, skippedLines: skipped, why: 'closed' };
        }
        if (events.length > 0 || follower.position > before) continue; // more may be waiting: read on without sleeping
        if (stopped() || Date.now() - lastGrowth > idleMs) {
          const waiting = follower.unfinishedBytes;
          io.err(
            `${name}: ${stopped() ? 'stopped' : `no growth for ${options.idleExitS} s`} after ${formatCount(frames, 'frame')}${waiting > 0 ? `; line ${follower.lineCount + 1} is incomplete (${waiting} bytes, no newline yet): not read` : ''}`,
          );
          return { findings: diagnoser?.findings ?? [], frames, skippedLines: skipped + (waiting > 0 ? 1 : 0), why: stopped() ? 'interrupted' : 'idle' };
        }
        await sleep(FOLLOW_POLL_MS);
      }
    } finally {
      follower.close();
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
