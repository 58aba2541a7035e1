/**
 * The live I/O thread (a worker thread of the simulation worker; bundle dist/liveIo.js): runs the listener
 * (./liveListener.ts) — the sockets, the token check, every recording line appended to its file as it comes —
 * and tells the simulation worker what arrived. It never diagnoses, so a writer is never slowed by the
 * editor's diagnosis: the file is the queue between this thread and the one that reads and diagnoses it.
 */
import { parentPort } from 'node:worker_threads';
import { ARM_LINE } from '../../format/liveProtocol.js';
import type { IoEvent, IoRequest } from './ioMessages.js';
import { type ConnectionHooks, type LiveConnection, LiveListener } from './liveListener.js';
import { loadMeter } from './threadLoad.js';

if (!parentPort) throw new Error('liveIoThread.ts must run in a worker thread');
const port = parentPort;
const post = (e: IoEvent): void => port.postMessage(e);
let listener: LiveListener | null = null;
const connections = new Map<number, LiveConnection>();
let armNew = false;
const load = loadMeter('I/O');

/** "recorded" is sent once per turn of the event loop per writer (a burst of lines is one message). */
function recordedNotifier(c: LiveConnection): { note(): void; flush(): void } {
  let pending = false;
  const flush = (): void => {
    if (!pending) return;
    pending = false;
    post({ type: 'recorded', id: c.id, lines: c.lines });
  };
  return {
    note: () => {
      if (pending) return;
      pending = true;
      setImmediate(flush);
    },
    flush,
  };
}

function accepted(c: LiveConnection): ConnectionHooks {
  connections.set(c.id, c);
  const armed = armNew;
  if (armed) c.send(ARM_LINE); // in the welcome's write (the listener corks it): armed from frame one
  post({ type: 'accepted', id: c.id, file: c.file, remote: c.remote, armed });
  const recorded = recordedNotifier(c);
  return {
    recorded: () => recorded.note(),
    waiting: (frame) => {
      recorded.flush(); // the frame's line before its wait
      post({ type: 'waiting', id: c.id, frame });
    },
    problem: (message) => post({ type: 'problem', id: c.id, message }),
    closed: (lostBytes, line) => {
      recorded.flush();
      connections.delete(c.id);
      post({ type: 'closed', id: c.id, lostBytes, line });
    },
  };
}

port.on('message', (m: IoRequest) => {
  switch (m.op) {
    case 'start':
      if (listener) return post({ type: 'listening', value: listener.value });
      LiveListener.start(
        { folder: m.folder, maxLineBytes: m.maxLineBytes, helloTimeoutMs: m.helloTimeoutMs },
        { refused: (message) => post({ type: 'refused', message }), accepted },
      ).then(
        (l) => {
          listener = l;
          post({ type: 'listening', value: l.value });
        },
        (e: Error) => post({ type: 'failed', message: e.message }),
      );
      return;
    case 'armNew':
      armNew = m.armed;
      return;
    case 'send':
      connections.get(m.id)?.send(m.line);
      return;
    case 'close':
      connections.get(m.id)?.close();
      return;
    case 'stop':
      void (listener?.close() ?? Promise.resolve()).then(() => {
        listener = null;
        post({ type: 'stopped' });
      });
      return;
    case 'load':
      post({ type: 'load', load: load(m.reset) });
      return;
  }
});
