/**
 * The TypeScript writer's live sink (docs/live-protocol.md): the lines a RecordingWriter writes to its file,
 * sent as well to the editor listening on this machine, and the editor's answer awaited after a frame while
 * a break is armed — so `writeFrame()` of an engine paused at a break returns only when the user steps or
 * continues.
 *
 * An engine's step loop is synchronous, so the socket lives in a small worker thread (its own event loop)
 * and the writing thread blocks on shared memory (Atomics.wait) only when it must: after a frame while armed,
 * and when more than SINK_BUFFER_LIMIT bytes wait to be sent (back-pressure, so a slow editor slows the
 * engine instead of filling its memory). Without the environment variable nothing of this exists and writing
 * costs what it costs without it.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { HELLO_TIMEOUT_MS, helloLine, LIVE_ENV, type LiveTarget, parseLiveTarget, waitLine } from './liveProtocol.js';

/** Bytes queued for the socket beyond which the writing thread waits for them to drain. */
export const SINK_BUFFER_LIMIT = 16 * (1 << 20);
/** How long close() waits for the queued lines to reach the socket (ms). */
const CLOSE_TIMEOUT_MS = 10_000;

// shared Int32 slots
const SIGNAL = 0, // incremented (and notified) on every change
  STATUS = 1, // 0 connecting, 1 open, 2 refused or failed, 3 closed
  ARMED = 2, // 1 while the editor asks for an answer after every frame
  FLUSHED = 3, // 1 once close() has sent everything
  QUEUED_KIB = 4; // KiB queued in the socket (back-pressure)
const GO_OFFSET = 24; // Float64: the newest frame the editor released

/** The worker's code (CommonJS, plain JavaScript: it runs the same from the sources and from dist/writer.js). */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const net = require('node:net');
const { sab, port, address, hello, timeoutMs } = workerData;
const st = new Int32Array(sab, 0, 6);
const go = new Float64Array(sab, ${GO_OFFSET}, 1);
const signal = () => { Atomics.add(st, ${SIGNAL}, 1); Atomics.notify(st, ${SIGNAL}); };
const status = (s, message) => { if (message) port.postMessage(message); Atomics.store(st, ${STATUS}, s); signal(); };
const sock = address.kind === 'tcp' ? net.connect(address.port, address.host) : net.connect(address.path);
sock.setNoDelay(true);
let welcomed = false, text = '';
const timer = setTimeout(() => { if (!welcomed) { status(2, 'the editor did not answer within ' + timeoutMs + ' ms'); sock.destroy(); } }, timeoutMs);
const queued = () => { Atomics.store(st, ${QUEUED_KIB}, Math.ceil(sock.writableLength / 1024)); signal(); };
sock.on('connect', () => sock.write(hello + '\\n'));
sock.on('drain', queued);
sock.on('data', (d) => {
  text += d.toString('utf8');
  if (text.length > 1 << 20) { status(3, 'the editor sent a line longer than 1 MiB; disconnected'); sock.destroy(); return; }
  let welcomeNow = false; // told after the lines that came with it (an arm), so the engine's first frame sees them
  for (let i = text.indexOf('\\n'); i >= 0; i = text.indexOf('\\n')) {
    const line = text.slice(0, i); text = text.slice(i + 1);
    let m; try { m = JSON.parse(line); } catch { continue; }
    if (!m || typeof m !== 'object') continue;
    if (m.live === 'welcome') { welcomed = true; welcomeNow = true; clearTimeout(timer); }
    else if (m.live === 'refused') { clearTimeout(timer); status(2, 'the editor refused the connection: ' + String(m.reason)); sock.destroy(); }
    else if (m.live === 'arm') { Atomics.store(st, ${ARMED}, 1); signal(); }
    else if (m.live === 'disarm') { Atomics.store(st, ${ARMED}, 0); signal(); }
    else if (m.live === 'go' && typeof m.frame === 'number') { if (m.frame > go[0]) go[0] = m.frame; signal(); }
  }
  if (welcomeNow && Atomics.load(st, ${STATUS}) === 0) status(1);
});
sock.on('error', (e) => { if (!welcomed) { clearTimeout(timer); status(2, e.message); } });
sock.on('close', () => { clearTimeout(timer); Atomics.store(st, ${ARMED}, 0); if (Atomics.load(st, ${STATUS}) !== 2) status(3); Atomics.store(st, ${FLUSHED}, 1); signal(); });
parentPort.on('message', (m) => {
  if (m === null) { if (sock.destroyed) { Atomics.store(st, ${FLUSHED}, 1); signal(); } else sock.end(() => { Atomics.store(st, ${FLUSHED}, 1); signal(); }); return; }
  if (!sock.destroyed) { sock.write(m); queued(); }
});
`;

export class LiveSinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LiveSinkError';
  }
}

export class LiveSink {
  private readonly st: Int32Array;
  private readonly go: Float64Array;
  private closed = false;
  private warnedGone = false;

  private constructor(
    private readonly worker: Worker,
    sab: SharedArrayBuffer,
    private readonly port: MessagePort,
    private readonly log: (message: string) => void,
  ) {
    this.st = new Int32Array(sab, 0, 6);
    this.go = new Float64Array(sab, GO_OFFSET, 1);
  }

  /** Connects and waits for the editor's welcome; throws LiveSinkError when it is refused or does not answer. */
  static connect(target: LiveTarget, options: { timeoutMs?: number; log?: (message: string) => void } = {}): LiveSink {
    const sab = new SharedArrayBuffer(32);
    new Float64Array(sab, GO_OFFSET, 1)[0] = -1; // no frame released yet (frames are numbered from 0)
    const channel = new MessageChannel();
    const timeoutMs = options.timeoutMs ?? HELLO_TIMEOUT_MS;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { sab, port: channel.port2, address: target.address, hello: helloLine(target.token), timeoutMs },
      transferList: [channel.port2],
    });
    worker.unref(); // an engine that forgets close() still exits
    const sink = new LiveSink(worker, sab, channel.port1, options.log ?? ((m) => process.stderr.write(`${m}\n`)));
    const deadline = Date.now() + timeoutMs + 1000;
    while (Atomics.load(sink.st, STATUS) === 0 && Date.now() < deadline) {
      Atomics.wait(sink.st, SIGNAL, Atomics.load(sink.st, SIGNAL), 50);
    }
    const status = Atomics.load(sink.st, STATUS);
    if (status !== 1) {
      const why = sink.message() ?? (status === 0 ? `no answer within ${timeoutMs} ms` : 'the connection closed');
      void worker.terminate();
      throw new LiveSinkError(`live: cannot stream to the editor: ${why}`);
    }
    return sink;
  }

  /**
   * The sink the environment asks for: null when CONTACT_LENS_LIVE is not set; when it is set but the editor
   * cannot be reached, one line on the log and null (the engine goes on writing its file).
   */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env, log?: (message: string) => void): LiveSink | null {
    const value = env[LIVE_ENV];
    if (!value) return null;
    const say = log ?? ((m: string) => process.stderr.write(`${m}\n`));
    try {
      return LiveSink.connect(parseLiveTarget(value), { log: say });
    } catch (e) {
      say(`contact-lens: ${(e as Error).message}; writing the file only`);
      return null;
    }
  }

  private message(): string | undefined {
    let last: string | undefined;
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) last = String(m.message);
    return last;
  }

  /** True while the editor is connected. */
  get connected(): boolean {
    return !this.closed && Atomics.load(this.st, STATUS) === 1;
  }

  /** Sends one recording line (without its newline). */
  send(line: string): void {
    if (!this.connected) return this.gone();
    while (Atomics.load(this.st, QUEUED_KIB) * 1024 > SINK_BUFFER_LIMIT && Atomics.load(this.st, STATUS) === 1) {
      Atomics.wait(this.st, SIGNAL, Atomics.load(this.st, SIGNAL), 100);
    }
    this.worker.postMessage(`${line}\n`);
  }

  /** After frame `frame` was sent: while a break is armed, waits until the editor releases it (or goes away). */
  frameWritten(frame: number): void {
    if (!this.connected || Atomics.load(this.st, ARMED) === 0) return;
    this.worker.postMessage(`${waitLine(frame)}\n`);
    for (;;) {
      const seen = Atomics.load(this.st, SIGNAL);
      if (this.go[0] >= frame || Atomics.load(this.st, ARMED) === 0 || Atomics.load(this.st, STATUS) !== 1) break;
      Atomics.wait(this.st, SIGNAL, seen, 1000);
    }
    if (Atomics.load(this.st, STATUS) !== 1) this.gone();
  }

  /** Sends what is queued and closes the connection (waits at most 10 s). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.worker.postMessage(null);
    const deadline = Date.now() + CLOSE_TIMEOUT_MS;
    while (Atomics.load(this.st, FLUSHED) === 0 && Date.now() < deadline) Atomics.wait(this.st, SIGNAL, Atomics.load(this.st, SIGNAL), 50);
    void this.worker.terminate();
  }

  private gone(): void {
    if (this.warnedGone || this.closed) return;
    this.warnedGone = true;
    const why = this.message();
    this.log(`contact-lens: live: the editor disconnected${why ? ` (${why})` : ''}; writing the file only`);
  }
}
