/** Messages between the simulation worker and a live stream's diagnosis thread (./diagnosisThread.ts). */
import type { FrameDiagnosisResult } from '../model/timelineBuilder.js';
import type { DiagnosisSettings } from '../worker/workerProtocol.js';
import type { ThreadLoad } from './threadLoad.js';

export type DiagnosisRequest =
  /** Runs the diagnosis once on a tiny recording (./warmUp.ts), before a stream's first frame. */
  | { readonly op: 'warm' }
  | { readonly op: 'start'; readonly file: string; readonly diagnosis: DiagnosisSettings; readonly maxLineBytes?: number }
  /** Lines were appended to the file. */
  | { readonly op: 'kick' }
  | { readonly op: 'stop' }
  /** This thread's load since the last `reset` (the first request starts its meter). */
  | { readonly op: 'load'; readonly reset: boolean };

export type DiagnosisEvent =
  | { readonly type: 'diagnosed'; readonly result: FrameDiagnosisResult }
  /** The diagnosis cannot go on (one line). */
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'load'; readonly load: ThreadLoad };
