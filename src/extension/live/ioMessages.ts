/**
 * Messages between the simulation worker (which reads, diagnoses and shows a live stream) and the live I/O thread
 * (./liveIoThread.ts: the listener's sockets and the recordings on disk), so that reading the sockets and writing
 * what they bring never waits for a diagnosis.
 */
import type { ThreadLoad } from './threadLoad.js';

/** Simulation worker → I/O thread. */
export type IoRequest =
  | { readonly op: 'start'; readonly folder: string; readonly maxLineBytes?: number; readonly helloTimeoutMs?: number }
  /** Whether a writer that connects from now on is armed in the same write as its welcome. */
  | { readonly op: 'armNew'; readonly armed: boolean }
  | { readonly op: 'send'; readonly id: number; readonly line: string }
  | { readonly op: 'close'; readonly id: number }
  | { readonly op: 'stop' }
  /** This thread's load since the last `reset` (the first request starts its meter). */
  | { readonly op: 'load'; readonly reset: boolean };

/** I/O thread → simulation worker, in the order things happened. */
export type IoEvent =
  | { readonly type: 'listening'; readonly value: string }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'refused'; readonly message: string }
  /** `armed`: the welcome went with an arm (the break conditions asked for it when the writer connected). */
  | { readonly type: 'accepted'; readonly id: number; readonly file: string; readonly remote: string; readonly armed: boolean }
  /** Complete recording lines of writer `id` are on disk (`lines` in all so far). */
  | { readonly type: 'recorded'; readonly id: number; readonly lines: number }
  | { readonly type: 'waiting'; readonly id: number; readonly frame: number }
  | { readonly type: 'problem'; readonly id: number; readonly message: string }
  | { readonly type: 'closed'; readonly id: number; readonly lostBytes: number; readonly line: number }
  | { readonly type: 'stopped' }
  | { readonly type: 'load'; readonly load: ThreadLoad };
