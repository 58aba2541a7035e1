/**
 * The live protocol, version 1 (docs/live-protocol.md): how a writer library streams a recording to the
 * editor while it writes it, and how the editor answers when a break is armed. One source of truth for the
 * environment variable, the address form, the control lines and the limits, shared by the TypeScript
 * writer's live sink (liveSink.ts) and the editor's listener (src/extension/live/).
 *
 * Writer → editor: `{"live":"hello","version":1,"token":"…"}`, then the recording's own lines byte for byte
 * (header, initial state, frames, closing line), and `{"live":"wait","frame":K}` after frame K while a break
 * is armed. Editor → writer: `{"live":"welcome","version":1}` or `{"live":"refused","reason":"…"}`, then
 * `{"live":"arm"}`, `{"live":"disarm"}` and `{"live":"go","frame":K}`.
 */

export const LIVE_PROTOCOL_VERSION = 1;
/** The environment variable the writers read: `tcp://127.0.0.1:PORT?token=HEX` or `unix:///path?token=HEX`. */
export const LIVE_ENV = 'CONTACT_LENS_LIVE';
/** A token is 32 lowercase hexadecimal digits (128 random bits), new every time the editor starts listening. */
export const TOKEN_PATTERN = /^[0-9a-f]{32}$/;
/** The hello line must arrive within this time and be at most HELLO_MAX_BYTES long. */
export const HELLO_TIMEOUT_MS = 5000;
export const HELLO_MAX_BYTES = 4096;
/** Longest recording line the editor accepts from a live writer (a 1000-box pile frame is ≈ 1.5 MiB). */
export const LIVE_MAX_LINE_BYTES = 64 * (1 << 20);
/** Every control line starts with these bytes (writers write exactly this form; recording lines never do). */
export const CONTROL_PREFIX = '{"live":';

export type LiveAddress = { readonly kind: 'tcp'; readonly host: string; readonly port: number } | { readonly kind: 'unix'; readonly path: string };

export interface LiveTarget {
  readonly address: LiveAddress;
  readonly token: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '[::1]']);

/** Parses the environment variable's value; a clear Error naming what is wrong. */
export function parseLiveTarget(value: string): LiveTarget {
  const bad = (why: string): never => {
    throw new Error(`${LIVE_ENV}: ${why} (expected tcp://127.0.0.1:PORT?token=HEX or unix:///path/to/socket?token=HEX, docs/live-protocol.md)`);
  };
  const q = value.lastIndexOf('?token=');
  if (q < 0) bad('no ?token=');
  const token = value.slice(q + 7).trim();
  if (!TOKEN_PATTERN.test(token)) bad('the token is not 32 hexadecimal digits');
  const where = value.slice(0, q).trim();
  if (where.startsWith('tcp://')) {
    const hostPort = where.slice(6);
    const colon = hostPort.lastIndexOf(':');
    const host = hostPort.slice(0, colon);
    const port = Number(hostPort.slice(colon + 1));
    if (colon < 0 || !Number.isInteger(port) || port < 1 || port > 65535) bad('no valid port');
    if (!LOOPBACK.has(host)) bad(`the host ${JSON.stringify(host)} is not the loopback address 127.0.0.1 or [::1]; the editor listens on this machine only`);
    return { address: { kind: 'tcp', host: host === '[::1]' ? '::1' : host, port }, token };
  }
  if (where.startsWith('unix://')) {
    const path = where.slice(7);
    if (!path.startsWith('/')) bad('a unix socket path must be absolute');
    return { address: { kind: 'unix', path }, token };
  }
  return bad('unknown scheme');
}

export function formatLiveTarget(t: LiveTarget): string {
  const a = t.address;
  return a.kind === 'tcp' ? `tcp://${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}?token=${t.token}` : `unix://${a.path}?token=${t.token}`;
}

export const helloLine = (token: string): string => `{"live":"hello","version":${LIVE_PROTOCOL_VERSION},"token":"${token}"}`;
export const waitLine = (frame: number): string => `{"live":"wait","frame":${frame}}`;
export const WELCOME_LINE = `{"live":"welcome","version":${LIVE_PROTOCOL_VERSION}}`;
export const refusedLine = (reason: string): string => JSON.stringify({ live: 'refused', reason });
export const ARM_LINE = '{"live":"arm"}';
export const DISARM_LINE = '{"live":"disarm"}';
export const goLine = (frame: number): string => `{"live":"go","frame":${frame}}`;

/** A control line from a writer (hello, wait) or from the editor (welcome, refused, arm, disarm, go). */
export type ControlMessage =
  | { readonly live: 'hello'; readonly version: number; readonly token: string }
  | { readonly live: 'wait'; readonly frame: number }
  | { readonly live: 'welcome'; readonly version: number }
  | { readonly live: 'refused'; readonly reason: string }
  | { readonly live: 'arm' }
  | { readonly live: 'disarm' }
  | { readonly live: 'go'; readonly frame: number };

/** True when the line's bytes start with CONTROL_PREFIX (checked on bytes: a 1 MiB frame line is not decoded for it). */
export function isControlLine(bytes: Uint8Array): boolean {
  if (bytes.length < CONTROL_PREFIX.length) return false;
  for (let i = 0; i < CONTROL_PREFIX.length; i++) if (bytes[i] !== CONTROL_PREFIX.charCodeAt(i)) return false;
  return true;
}

/** The control message of a line, or a string saying why it is not one. */
export function parseControl(text: string): ControlMessage | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'a control line that is not JSON';
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'a control line that is not an object';
  const o = raw as Record<string, unknown>;
  const frameOk = typeof o.frame === 'number' && Number.isSafeInteger(o.frame) && o.frame >= 0;
  switch (o.live) {
    case 'hello':
      return typeof o.version === 'number' && typeof o.token === 'string'
        ? { live: 'hello', version: o.version, token: o.token }
        : 'a hello without version and token';
    case 'wait':
      return frameOk ? { live: 'wait', frame: o.frame as number } : 'a wait without a frame number';
    case 'welcome':
      return typeof o.version === 'number' ? { live: 'welcome', version: o.version } : 'a welcome without version';
    case 'refused':
      return { live: 'refused', reason: typeof o.reason === 'string' ? o.reason : 'refused' };
    case 'arm':
      return { live: 'arm' };
    case 'disarm':
      return { live: 'disarm' };
    case 'go':
      return frameOk ? { live: 'go', frame: o.frame as number } : 'a go without a frame number';
    default:
      return `an unknown control message ${JSON.stringify(String(o.live)).slice(0, 40)}`;
  }
}
