/**
 * A live stream's frame views, on a thread of their own (a worker thread of the simulation worker; bundle
 * dist/liveView.js): the thread that reads the stream (the simulation worker) sends each frame's place in the
 * recording and each frame's diagnosis by contact; a frame view reads its line again from the file here. So a
 * frame view — a busy frame's islands re-assembled, its conditioning — never holds up the frames that follow it.
 */
import { parentPort } from 'node:worker_threads';
import { GrowingRecording } from '../../session/growingRecording.js';
import { InspectorModel, TimelineBuilder } from '../model/inspectorModel.js';
import type { ViewEvent, ViewRequest } from './viewMessages.js';
import { loadMeter } from './threadLoad.js';
import { warmModel, withWarmRecording } from './warmUp.js';

if (!parentPort) throw new Error('viewThread.ts must run in a worker thread');
const port = parentPort;
const post = (e: ViewEvent): void => port.postMessage(e);
const load = loadMeter('views');
let model: InspectorModel | null = null;

/** The frame view of the warm-up recording's last frame, and its pending conditioning. */
function warm(): void {
  withWarmRecording((r) => {
    const m = warmModel(r);
    const last = r.frames.length - 1;
    m.frameView(last);
    m.conditioning(last);
    m.close();
  });
}

function answer(id: number, compute: () => ViewEvent): void {
  try {
    post(compute());
  } catch (e) {
    post({ type: 'error', id, message: (e as Error).message });
  }
}

port.on('message', (m: ViewRequest) => {
  switch (m.op) {
    case 'warm':
      return warm();
    case 'open':
      model?.close();
      model = InspectorModel.growing(new GrowingRecording(m.file, m.header), m.info, new TimelineBuilder(m.header, null));
      return;
    case 'append':
      for (const a of m.frames) model?.appendIndexed(a);
      return;
    case 'diagnosed':
      for (const d of m.results) model?.applyViewDiagnosis(d);
      return;
    case 'frame':
      return answer(m.id, () => ({ type: 'frame', id: m.id, view: current().frameView(m.index) }));
    case 'conditioning':
      return answer(m.id, () => ({ type: 'conditioning', id: m.id, islands: current().conditioning(m.index) }));
    case 'load':
      post({ type: 'load', load: load(m.reset) });
      return;
  }
});

function current(): InspectorModel {
  if (!model) throw new Error('no live stream is shown');
  return model;
}
