/**
 * The editor's end of the live protocol (docs/live-protocol.md): a TCP server on the loopback address only, on
 * a port the operating system picks, that accepts a writer only after its first line presents the one-time
 * token. Every recording line an accepted writer sends is appended to a new recording file at once, exactly
 * as received (what was received is never lost, and the file is byte for byte what the writer sent); a line
 * longer than LIVE_MAX_LINE_BYTES is dropped with one error, and a writer that disconnects in the middle of a
 * line loses that line only. Runs on the simulation worker's live I/O thread (./liveIoThread.ts; Node, no vscode),
 * where nothing waits for a diagnosis; the extension host never sees
 * the bytes.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { LineSplitter } from '../../format/lineSplitter.js';
import {
  formatLiveTarget,
  HELLO_MAX_BYTES,
  HELLO_TIMEOUT_MS,
  isControlLine,
  LIVE_MAX_LINE_BYTES,
  LIVE_PROTOCOL_VERSION,
  type LiveTarget,
  parseControl,
  refusedLine,
  WELCOME_LINE,
} from '../../format/liveProtocol.js';

/** Writers streaming at once (more are refused with a message); connections still presenting their token count too. */
export const MAX_WRITERS = 16;
export const MAX_PENDING_CONNECTIONS = 32;

export interface ListenOptions {
  /** Folder the recordings are written to (created if missing). */
  readonly folder: string;
  readonly maxLineBytes?: number;
  readonly helloTimeoutMs?: number;
}

export interface ConnectionHooks {
  /** Complete recording lines were appended to the file (the feed reads them from there). */
  recorded(): void;
  /** The writer waits after frame K for the editor's answer. */
  waiting(frame: number): void;
  /** A problem with this writer's stream, one line (the stream goes on). */
  problem(message: string): void;
  /**
   * The connection closed; `lostBytes` > 0 when it ended in the middle of a line: that line, which would have
   * been line `line` of the recording, is not in the file.
   */
  closed(lostBytes: number, line: number): void;
}

export interface ListenerEvents {
  /** A connection that was not accepted, and why (one line). */
  refused(message: string): void;
  /** A writer presented the right token; returns what to do with its stream. */
  accepted(connection: LiveConnection): ConnectionHooks;
}

let nextId = 1;

/** Bytes after a newline (the recording's line end). */
const NEWLINE = Buffer.from('\n');

/** One accepted writer: its recording file and its back-channel. */
export class LiveConnection {
  readonly id = nextId++;
  private fd: number | null = null;
  private hooks: ConnectionHooks | null = null;
  /** Recording lines written to the file (the hello and control lines are not part of the recording). */
  lines = 0;
  bytes = 0;

  constructor(
    private readonly socket: net.Socket,
    readonly file: string,
    readonly remote: string,
  ) {}

  /** Sends one control line to the writer. */
  send(line: string): void {
    if (!this.socket.destroyed) this.socket.write(`${line}\n`);
  }

  close(): void {
    this.socket.destroy();
  }

  /** @internal the listener's: creates the recording file (so that it can be followed from now on). */
  create(): void {
    this.fd = fs.openSync(this.file, 'wx', 0o644);
  }

  /** @internal the listener's: the hooks of the stream. */
  attach(hooks: ConnectionHooks): void {
    this.hooks = hooks;
  }

  /** @internal */
  line(bytes: Buffer): void {
    const h = this.hooks!;
    if (isControlLine(bytes)) {
      const m = parseControl(bytes.toString('utf8'));
      if (typeof m === 'string') h.problem(`${this.file}: after line ${this.lines}: ${m} from the writer; ignored`);
      else if (m.live === 'wait') h.waiting(m.frame);
      else if (m.live !== 'hello') h.problem(`${this.file}: after line ${this.lines}: a writer does not send "${m.live}"; ignored`);
      return;
    }
    if (this.fd === null) return;
    try {
      fs.writevSync(this.fd, [bytes, NEWLINE]); // at once: what was received is on disk before anything reads it
    } catch (e) {
      h.problem(`${this.file}: cannot write the recording (${(e as Error).message}); the stream is closed`);
      this.close();
      return;
    }
    this.lines++;
    this.bytes += bytes.length + 1;
    h.recorded();
  }

  /** @internal */
  ended(lostBytes: number, lineNo: number): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    this.hooks?.closed(lostBytes, lineNo);
  }
}

export class LiveListener {
  private readonly sockets = new Set<net.Socket>();
  private writers = 0;
  /** Recording names handed out (a file is created at its first line: two writers in the same millisecond get two names). */
  private readonly reserved = new Set<string>();

  private constructor(
    private readonly server: net.Server,
    readonly target: LiveTarget,
    private readonly options: ListenOptions,
  ) {}

  /** Starts listening on 127.0.0.1 (a port the system picks), with a fresh token. */
  static async start(options: ListenOptions, events: ListenerEvents): Promise<LiveListener> {
    fs.mkdirSync(options.folder, { recursive: true });
    const token = randomBytes(16).toString('hex');
    const server = net.createServer({ noDelay: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve());
    });
    const port = (server.address() as net.AddressInfo).port;
    const l = new LiveListener(server, { address: { kind: 'tcp', host: '127.0.0.1', port }, token }, options);
    server.on('connection', (s) => l.connection(s, events));
    server.on('error', (e) => events.refused(`the listener failed: ${e.message}`));
    return l;
  }

  /** The environment variable's value that lets a writer connect. */
  get value(): string {
    return formatLiveTarget(this.target);
  }

  private connection(socket: net.Socket, events: ListenerEvents): void {
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    // defence in depth: the server listens on the loopback address only
    if (!socket.remoteAddress || !/^(127\.|::1$|::ffff:127\.)/.test(socket.remoteAddress)) {
      socket.destroy();
      events.refused(`refused a connection from ${remote}: not from this machine`);
      return;
    }
    if (this.sockets.size >= MAX_PENDING_CONNECTIONS + MAX_WRITERS) {
      socket.destroy();
      events.refused(`refused a connection from ${remote}: too many connections`);
      return;
    }
    this.sockets.add(socket);
    const maxLine = this.options.maxLineBytes ?? LIVE_MAX_LINE_BYTES;
    let conn: LiveConnection | null = null;
    let refused = false;
    const refuse = (why: string): void => {
      if (refused) return;
      refused = true;
      events.refused(`refused a connection from ${remote}: ${why}`);
      if (!socket.destroyed) socket.end(`${refusedLine(why)}\n`);
      socket.destroySoon();
    };
    const timer = setTimeout(
      () => refuse(`no token: it sent no live hello within ${(this.options.helloTimeoutMs ?? HELLO_TIMEOUT_MS) / 1000} s`),
      this.options.helloTimeoutMs ?? HELLO_TIMEOUT_MS,
    );
    let hooksOfConn: ConnectionHooks | null = null;
    const splitter = new LineSplitter(maxLine, {
      line: (bytes) => {
        if (refused) return;
        if (conn) return conn.line(bytes);
        clearTimeout(timer);
        const why = this.checkHello(bytes);
        if (why) return refuse(why);
        if (this.writers >= MAX_WRITERS) return refuse(`too many writers streaming at once (${MAX_WRITERS})`);
        conn = new LiveConnection(socket, this.recordingName(), remote);
        try {
          conn.create();
        } catch (e) {
          conn = null;
          return refuse(`the editor cannot create a recording in ${this.options.folder} (${(e as Error).message})`);
        }
        this.writers++;
        // the welcome and an arm the break conditions ask for leave in one write: the writer reads both before
        // its first frame, so a break set before the engine starts holds it at the first matching frame
        socket.cork();
        conn.send(WELCOME_LINE); // before anything the editor says next (arm)
        hooksOfConn = events.accepted(conn);
        conn.attach(hooksOfConn);
        socket.uncork();
      },
      oversize: () => {
        if (!conn) return refuse(`no token: its first line is longer than ${HELLO_MAX_BYTES} bytes`);
        hooksOfConn?.problem(
          `${conn.file}: the line after line ${conn.lines} is longer than ${maxLine} bytes (the limit for a live line); it is not recorded, the stream goes on`,
        );
      },
    });
    socket.on('data', (chunk: Buffer) => {
      if (refused) return;
      // before the token, at most HELLO_MAX_BYTES of it are looked at
      if (!conn && splitter.unfinishedBytes + chunk.length > HELLO_MAX_BYTES && chunk.indexOf(10) < 0) {
        return refuse(`no token: its first ${HELLO_MAX_BYTES} bytes hold no live hello line`);
      }
      splitter.push(chunk);
    });
    socket.on('error', () => undefined); // a reset connection ends like a closed one ('close' follows)
    socket.on('close', () => {
      clearTimeout(timer);
      this.sockets.delete(socket);
      if (!conn) {
        if (!refused) events.refused(`a connection from ${remote} closed before presenting the token`);
        return;
      }
      this.writers--;
      conn.ended(splitter.unfinishedBytes, conn.lines + 1);
    });
  }

  /** Why a first line is not an acceptable hello (null: it is). */
  private checkHello(bytes: Buffer): string | null {
    if (!isControlLine(bytes)) return 'no token: its first line is not the live hello {"live":"hello","version":1,"token":…} (docs/live-protocol.md)';
    const m = parseControl(bytes.toString('utf8'));
    if (typeof m === 'string' || m.live !== 'hello') return 'no token: its first line is not the live hello';
    if (m.version !== LIVE_PROTOCOL_VERSION) return `it speaks live protocol version ${m.version}; this editor speaks version ${LIVE_PROTOCOL_VERSION}`;
    const a = Buffer.from(m.token, 'utf8'),
      b = Buffer.from(this.target.token, 'utf8');
    if (a.length !== b.length || !timingSafeEqual(a, b)) return 'wrong token';
    return null;
  }

  private recordingName(): string {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    for (let k = 1; ; k++) {
      const file = path.join(this.options.folder, `live-${stamp}${k > 1 ? `-${k}` : ''}.rec.jsonl`);
      if (!this.reserved.has(file) && !fs.existsSync(file)) {
        this.reserved.add(file);
        return file;
      }
    }
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
