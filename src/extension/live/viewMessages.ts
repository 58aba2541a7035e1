/** Messages between the simulation worker and a live stream's frame-view thread (./viewThread.ts). */
import type { RecordingHeader } from '../../format/recording.js';
import type { FrameView, IslandConditioningView, SessionInfo } from '../../protocol/inspector.js';
import type { AppendedFrame } from '../../session/growingRecording.js';
import type { FrameDiagnosisResult } from '../model/timelineBuilder.js';
import type { ThreadLoad } from './threadLoad.js';

/** What a frame view needs of a frame's diagnosis (the rest stays with the reading thread's model). */
export type ViewDiagnosis = Pick<FrameDiagnosisResult, 'index' | 'byContact' | 'resolveBudgetFrame'>;

export type ViewRequest =
  /** Runs the frame-view code once on a tiny recording (./warmUp.ts), before a stream's first frame. */
  | { readonly op: 'warm' }
  /** The stream's recording, its header and its first frames as the reading thread indexed them. */
  | { readonly op: 'open'; readonly file: string; readonly header: RecordingHeader; readonly info: SessionInfo }
  /** Frames the reading thread appended since, in order. */
  | { readonly op: 'append'; readonly frames: readonly AppendedFrame[] }
  /** Diagnoses of the next frames, in order. */
  | { readonly op: 'diagnosed'; readonly results: readonly ViewDiagnosis[] }
  | { readonly op: 'frame'; readonly id: number; readonly index: number }
  /** The conditioning of the islands the view of `index` left pending. */
  | { readonly op: 'conditioning'; readonly id: number; readonly index: number }
  /** This thread's load since the last `reset` (the first request starts its meter). */
  | { readonly op: 'load'; readonly reset: boolean };

export type ViewEvent =
  | { readonly type: 'frame'; readonly id: number; readonly view: FrameView }
  | { readonly type: 'conditioning'; readonly id: number; readonly islands: readonly IslandConditioningView[] }
  | { readonly type: 'error'; readonly id: number; readonly message: string }
  | { readonly type: 'load'; readonly load: ThreadLoad };
