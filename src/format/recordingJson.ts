/**
 * Recording format, one JSON line in and out: serialisation (shortest round-trip numbers, −0 kept) and the
 * line scanner that tells a malformed line from one holding NaN/Infinity tokens written by other engines
 * (C printf, Python, JavaScript), naming the field that holds the first one.
 */
import { FormatError } from './messages.js';
import { isNumericView } from './fieldReader.js';
import type { RecordedFrame, RecordedInitialState, RecordingHeader } from './recordingTypes.js';

// ─── serialisation ──────────────────────────────────────────────────────────────────────────────────

/**
 * JSON text of a value, one line. Numbers use the shortest representation that round-trips (ECMAScript
 * Number → String), except −0, which JSON.stringify would write as 0. Non-finite numbers throw (JSON has
 * no NaN/Infinity). Typed arrays are written as arrays; undefined object members are left out.
 */
export function toJsonLine(value: unknown, path = '(root)'): string {
  const out: string[] = [];
  write(value, path, out);
  return out.join('');
}

function write(v: unknown, path: string, out: string[]): void {
  if (v === null) {
    out.push('null');
    return;
  }
  switch (typeof v) {
    case 'number':
      if (!Number.isFinite(v)) throw new RangeError(`${path}: ${v} is not a finite number; JSON cannot represent it`);
      out.push(Object.is(v, -0) ? '-0' : String(v));
      return;
    case 'string':
      out.push(JSON.stringify(v));
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'object': {
      if (Array.isArray(v) || isNumericView(v)) {
        const a = v as ArrayLike<unknown>;
        out.push('[');
        for (let i = 0; i < a.length; i++) {
          if (i > 0) out.push(',');
          const x = a[i];
          if (typeof x === 'number' && Number.isFinite(x)) out.push(Object.is(x, -0) ? '-0' : String(x));
          else write(x, `${path}[${i}]`, out);
        }
        out.push(']');
        return;
      }
      out.push('{');
      let first = true;
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (x === undefined) continue;
        if (!first) out.push(',');
        first = false;
        out.push(JSON.stringify(k), ':');
        write(x, path === '(root)' ? k : `${path}.${k}`, out);
      }
      out.push('}');
      return;
    }
    default:
      throw new TypeError(`${path}: cannot write a ${typeof v} to JSON`);
  }
}

/**
 * The header as one line (no newline). Keys in the documented order, then the writer's top-level vendor
 * extensions (keys starting with "x-", docs/recording-format.md "How files are read"), which readers ignore.
 */
export function serializeHeader(h: RecordingHeader): string {
  const vendor = Object.entries(h as unknown as Record<string, unknown>).filter(([k]) => k.startsWith('x-'));
  return toJsonLine({
    format: h.format,
    version: h.version,
    producer: { name: h.producer.name, version: h.producer.version },
    units: h.units,
    conventions: { up: h.conventions.up, quaternion: h.conventions.quaternion, normal: h.conventions.normal, impulse: h.conventions.impulse },
    dt: h.dt,
    gravity: h.gravity,
    bodies: h.bodies.map((b) => ({ name: b.name, shape: b.shape, mass: b.mass, inertia: b.inertia, static: b.static })),
    solver: h.solver,
    ...Object.fromEntries(vendor),
  });
}

/** One frame as one line (no newline). Keys in the documented order. */
export function serializeFrame(f: RecordedFrame): string {
  return toJsonLine({
    frame: f.frame,
    time: f.time,
    bodies: f.bodies.map((s) => ({ x: s.x, q: s.q, v: s.v, w: s.w })),
    pre: f.pre?.map((p) => ({ v: p.v, w: p.w, x: p.x, q: p.q })),
    contacts: f.contacts.map((c) => ({
      a: c.a,
      b: c.b,
      point: c.point,
      normal: c.normal,
      t1: c.t1,
      t2: c.t2,
      depth: c.depth,
      gap: c.gap,
      mu: c.mu,
      e: c.e,
      feature: c.feature,
      soft: c.soft,
    })),
    solver: {
      name: f.solver.name,
      status: f.solver.status,
      reason: f.solver.reason,
      iterations: f.solver.iterations,
      residuals: f.solver.residuals,
      lambda: f.solver.lambda,
    },
    A: f.A,
    b: f.b,
    energy: f.energy,
    manifolds: f.manifolds?.map((m) => ({ a: m.a, b: m.b, contacts: m.contacts, point: m.point, normal: m.normal, t1: m.t1, t2: m.t2, lambda: m.lambda })),
    external: f.external?.map((x) => ({ body: x.body, impulse: x.impulse, angular: x.angular, stage: x.stage })),
  });
}

/** The format 1.1 initial-state line (no newline): `{"initial": {"time"?, "bodies": [{x, q, v, w}, …]}}`. */
export function serializeInitial(s: RecordedInitialState): string {
  return toJsonLine({ initial: { time: s.time, bodies: s.bodies.map((b) => ({ x: b.x, q: b.q, v: b.v, w: b.w })) } });
}

// ─── JSON parsing with NaN/Infinity detection ──────────────────────────────────────────────────────

const NONFINITE_MARK = '\u0000nonfinite:';
/** Tokens other engines write for non-finite numbers: JavaScript/Python (NaN, Infinity), C printf (nan, inf, -nan). */
const NONFINITE_TOKEN = /[-+]?(?:nan|infinity|inf)(?:\([^)]*\))?(?![A-Za-z0-9_])/iy;

/**
 * JSON.parse one line. When it fails, looks for NaN/Infinity/nan/inf tokens outside strings; if there are
 * any, the field holding the first one is reported; otherwise the JSON error is.
 */
export function parseJsonLine(text: string, file: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const marked = markNonFinite(text);
    if (marked !== null) {
      let v: unknown;
      try {
        v = JSON.parse(marked);
      } catch {
        v = undefined;
      }
      if (v !== undefined) {
        const hit = findMark(v);
        if (hit) {
          throw new FormatError(
            file,
            `${where}${hit.path || '(root)'}`,
            `is ${hit.token}, which is not a JSON number: the value was not finite when it was written (JSON has no NaN/Infinity; fix it at the source or write the frame with status "failed")`,
          );
        }
      }
    }
    throw new FormatError(file, `${where}(json)`, jsonErrorDetail(e as Error, text));
  }
}

function jsonErrorDetail(e: Error, text: string): string {
  const m = /at position (\d+)/.exec(e.message);
  const msg = e.message.length > 160 ? e.message.slice(0, 160) + '…' : e.message;
  if (/Unexpected end of JSON input|Unterminated string|end of (JSON|data)/i.test(e.message) || (m && Number(m[1]) >= text.trimEnd().length)) {
    return `malformed JSON: the line ends before the JSON value is complete (${msg})`;
  }
  return m ? `malformed JSON at column ${Number(m[1]) + 1}: ${msg}` : `malformed JSON: ${msg}`;
}

function markNonFinite(text: string): string | null {
  let out: string[] | null = null;
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22) {
      // string: skip to its closing quote
      i++;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === 0x5c) i += 2;
        else if (c === 0x22) {
          i++;
          break;
        } else i++;
      }
      continue;
    }
    if (ch === 0x2d || ch === 0x2b || ch === 0x4e || ch === 0x6e || ch === 0x49 || ch === 0x69) {
      // - + N n I i
      const prev = i > 0 ? text[i - 1] : '';
      if (prev === '' || /[\s,:[]/.test(prev)) {
        NONFINITE_TOKEN.lastIndex = i;
        const m = NONFINITE_TOKEN.exec(text);
        if (m) {
          out ??= [];
          out.push(text.slice(last, i), JSON.stringify(NONFINITE_MARK + m[0]));
          i += m[0].length;
          last = i;
          continue;
        }
      }
    }
    i++;
  }
  if (!out) return null;
  out.push(text.slice(last));
  return out.join('');
}

/** Containers deeper than this are not searched for a non-finite token (the JSON error is reported instead). */
const MAX_MARK_DEPTH = 512;

/**
 * The first marked non-finite token in document order and its JSON path. Iterative with an explicit
 * stack and depth-bounded: a line of thousands of nested arrays cannot overflow the call stack.
 */
function findMark(root: unknown): { path: string; token: string } | null {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: root, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.startsWith(NONFINITE_MARK)) return { path, token: v.slice(NONFINITE_MARK.length) };
      continue;
    }
    if (v === null || typeof v !== 'object' || depth >= MAX_MARK_DEPTH) continue;
    const entries: [string, unknown][] = Array.isArray(v)
      ? v.map((x, i) => [`${path}[${i}]`, x])
      : Object.entries(v).map(([k, x]) => [path ? `${path}.${k}` : k, x]);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i][1], path: entries[i][0], depth: depth + 1 });
  }
  return null;
}
