/**
 * The diagnosis of a live stream, on a thread of its own (a worker thread of the simulation worker; bundle
 * dist/liveDiagnosis.js): reads the writer's recording from disk as the I/O thread appends it, diagnoses each
 * frame in order (the same Diagnoser as a recording opened from disk) and sends each frame's result to the
 * simulation worker, which shows the frames as they come without waiting for it. The diagnosis may lag the
 * stream; it catches up, and the editor answers a writer held at a break only once the frame is diagnosed.
 */
import * as fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { RecordingFollower } from '../../format/recordingFollow.js';
import type { RecordedFrame } from '../../format/recording.js';
import { Diagnoser } from '../../session/diagnose.js';
import { type FrameDiagnosisResult, frameKappa, toFindingView } from '../model/timelineBuilder.js';
import type { DiagnosisRequest, DiagnosisEvent } from './diagnosisMessages.js';
import { loadMeter } from './threadLoad.js';
import { withWarmRecording } from './warmUp.js';
import { DIAGNOSIS_NICE, lowerThisThread } from './threadPriority.js';

if (!parentPort) throw new Error('diagnosisThread.ts must run in a worker thread');
const port = parentPort;
const post = (e: DiagnosisEvent): void => port.postMessage(e);

/** Longest run of work before the thread reads its messages (ms). */
const SLICE_MS = 50;

let follower: RecordingFollower | null = null;
let diag: Diagnoser | null = null;
let settings: DiagnosisRequest & { op: 'start' };
/** Session position of each frame number (findings name a frame; the view needs its position). */
const indexOfFrame = new Map<number, number>();
let index = 0;
let previous: RecordedFrame | undefined;
let busy = false;
let again = false;
let closed = false;
const load = loadMeter('diagnosis');
// below the I/O thread and the worker: on a busy machine the writer and the frames shown go first (./threadPriority.ts)
lowerThisThread(DIAGNOSIS_NICE);

/** `kappa`: the timeline's κ too (left out while the diagnosis is behind). */
function diagnose(f: RecordedFrame, kappa: boolean): FrameDiagnosisResult {
  const header = follower!.header!;
  diag ??= new Diagnoser(header, { ...settings.diagnosis, keepFrames: false });
  if (!indexOfFrame.has(f.frame)) indexOfFrame.set(f.frame, index);
  const before = diag.findings.length;
  diag.add(f);
  const last = diag.lastFrame!;
  const k = kappa ? frameKappa(header, f, previous) : { kappa: null, kappaRange: null };
  previous = f;
  return {
    ...k,
    index: index++,
    frame: f.frame,
    injected: [...last.injected],
    byContact: [...last.byContact],
    findings: diag.findings.slice(before).map((x) => toFindingView(x, indexOfFrame.get(x.frame) ?? 0)),
    resolveBudgetFrame: diag.cost.exhaustedAt,
  };
}

/** The diagnosis and the timeline's κ of a tiny recording, before a stream's first frame (./warmUp.ts). */
function warm(): void {
  withWarmRecording((r) => {
    const d = new Diagnoser(r.header, { keepFrames: false });
    let prev: RecordedFrame | undefined;
    for (const { frame } of r.frames) {
      d.add(frame);
      frameKappa(r.header, frame, prev);
      prev = frame;
    }
    d.findings.map((x) => toFindingView(x, 0));
  });
}

/** Whether the recording holds bytes after `position` (lines the diagnosis has not read yet). */
function unread(position: number): boolean {
  try {
    return fs.statSync(settings.file).size > position;
  } catch {
    return false;
  }
}

function pump(): void {
  const t0 = performance.now();
  again = false;
  let dry = false;
  try {
    while (!closed && performance.now() - t0 < SLICE_MS) {
      const before = follower!.position;
      const events = follower!.poll();
      if (events.length === 0) {
        if (follower!.position > before) continue; // part of a long line: read on
        dry = true;
        break;
      }
      // a poll's frames are diagnosed together (one poll reads at most a chunk of the file); behind (more than one
      // frame read at once, or more on disk than was read: a frame larger than a chunk), the timeline's κ is left out
      // but for the newest
      const frames = events.filter((e) => e.kind === 'frame');
      const more = frames.length > 0 && unread(follower!.position);
      frames.forEach((e, i) => post({ type: 'diagnosed', result: diagnose(e.frame, i === frames.length - 1 && !more) }));
    }
  } catch (e) {
    post({ type: 'failed', message: `${settings.file}: the diagnosis stopped: ${(e as Error).message}` });
    closed = true;
  }
  if (!closed && (!dry || again)) {
    setImmediate(pump);
    return;
  }
  busy = false;
}

function kick(): void {
  if (closed || !follower) return;
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  setImmediate(pump);
}

port.on('message', (m: DiagnosisRequest) => {
  switch (m.op) {
    case 'warm':
      warm();
      return;
    case 'start':
      settings = m;
      follower = RecordingFollower.open(m.file, { maxLineBytes: m.maxLineBytes });
      kick();
      return;
    case 'kick':
      kick();
      return;
    case 'stop':
      closed = true;
      follower?.close();
      return;
    case 'load':
      post({ type: 'load', load: load(m.reset) });
      return;
  }
});
