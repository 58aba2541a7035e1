/**
 * Recording format v1 (docs/recording-format.md): exact round trip, streaming index and seek, bad lines
 * reported with line and field while the rest stays readable, truncated last line, rejected conventions,
 * writer safety, the hand-written foreign-engine example and the JSON schemas.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FormatError } from '../../src/format/oracle.js';
import {
  parseFrame,
  parseHeader,
  preSolveBodyStates,
  serializeFrame,
  serializeHeader,
  toContactPoint,
  type RecordedContact,
  type RecordedFrame,
  type RecordingHeader,
} from '../../src/format/recording.js';
import { CHUNK_BYTES, RecordingReader, RecordingWriter } from '../../src/format/recordingFile.js';
import { assembleProblem } from '../../src/engine/assembly.js';
import { tangentBasis, type Vec3 } from '../../src/engine/math/vec3.js';

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(ROOT, 'examples/foreign-engine.rec.jsonl');
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-recording-'));
let tmpCount = 0;
const tmpFile = (name: string): string => path.join(tmpDir, `${tmpCount++}-${name}`);
after(() => fs.rmSync(tmpDir, { recursive: true, force: true }));

const CONV = { up: 'z', quaternion: 'wxyz', normal: 'b-to-a', impulse: 'per-step' } as const;

function makeHeader(): RecordingHeader {
  return {
    format: 'contact-lens-recording',
    version: 1,
    producer: { name: 'test-engine', version: '1.0' },
    units: 'SI',
    conventions: CONV,
    dt: 1 / 60,
    gravity: [0, 0, -9.81],
    bodies: [
      { name: 'ground', shape: { plane: { normal: [0, 0, 1], offset: 0 } }, mass: null, inertia: null, static: true },
      {
        name: 'box',
        shape: { box: { halfExtents: [0.5, 0.25, 0.125] } },
        mass: 3,
        inertia: [(3 / 3) * (0.0625 + 0.015625), (3 / 3) * (0.25 + 0.015625), (3 / 3) * (0.25 + 0.0625)],
        static: false,
      },
      // a 9-number tensor with awkward doubles (the solid-sphere value 0.4·m·r², so no plausibility warning)
      {
        name: 'ball',
        shape: { sphere: { radius: 0.1 } },
        mass: 0.1 + 0.2,
        inertia: [0.4 * 0.3 * 0.01, 0, 0, 0, 0.4 * (0.1 + 0.2) * 0.1 * 0.1, -0, 0, -0, 0.4 * (0.1 + 0.2) * 0.1 * 0.1],
        static: false,
      },
    ],
    solver: { name: 'pgs', maxIterations: 50, erp: 0.2, nested: { a: [1, 'x'] } },
  };
}

/** Deterministic pseudo-random numbers. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** Frame k of a synthetic recording: k % 5 contacts with random unit normals and right-handed tangents. */
function makeFrame(k: number, header: RecordingHeader): RecordedFrame {
  const r = rng(k + 1);
  const v3 = (s = 1): Vec3 => [(r() - 0.5) * s, (r() - 0.5) * s, (r() - 0.5) * s];
  const B = header.bodies.length;
  const C = k % 5;
  const contacts: RecordedContact[] = [];
  for (let i = 0; i < C; i++) {
    const raw = v3();
    const l = Math.hypot(...raw) || 1;
    const n: Vec3 = [raw[0] / l, raw[1] / l, raw[2] / l];
    const [t1, t2] = tangentBasis(n);
    contacts.push({
      a: 1 + (i % 2),
      b: i % 3 === 0 ? -1 : 0,
      point: v3(10),
      normal: n,
      t1,
      t2,
      depth: r() * 1e-3,
      mu: r(),
      e: 0,
      ...(i % 2 ? { feature: `f${i}` } : {}),
    });
  }
  const lambda = Array.from({ length: 3 * C }, () => r() - 0.2);
  const frame: RecordedFrame = {
    frame: 3 * k,
    time: (k + 1) / 60,
    bodies: Array.from({ length: B }, () => ({ x: v3(5), q: [1, 0, 0, 0], v: v3(), w: v3() })),
    pre: Array.from({ length: B }, (_, i) => (i === 1 ? { v: v3(), w: v3(), x: v3(), q: [0, 0, 0, 1] } : { v: v3(), w: v3() })),
    contacts,
    solver: {
      name: 'pgs',
      status: (['converged', 'max-iterations', 'stalled', 'failed'] as const)[k % 4],
      iterations: k % 7,
      residuals: [r(), r() * 1e-9],
      lambda,
    },
    ...(k % 3 === 0 ? { A: Array.from({ length: 9 * C * C }, () => r()), b: Array.from({ length: 3 * C }, () => r()) } : {}),
    energy: { kinetic: r(), total: r() },
  };
  return frame;
}

function writeRecording(file: string, frames: number, header = makeHeader()): RecordedFrame[] {
  const w = RecordingWriter.create(file, header, { end: false }); // header and frame lines only (the closing line has its own tests)
  const out: RecordedFrame[] = [];
  for (let k = 0; k < frames; k++) {
    const f = makeFrame(k, header);
    w.writeFrame(f);
    out.push(f);
  }
  w.close();
  return out;
}

function lines(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split('\n');
}

describe('recording format: serialisation round trip', () => {
  it('write → read gives deep-equal headers and frames, bit-identical numbers (0.1+0.2, 1e-300, −0, 5e-324, max double)', () => {
    const header = makeHeader();
    const awkward = [0.1 + 0.2, 1e-300, -0, 5e-324, Number.MAX_VALUE, -Number.MIN_VALUE, 123456789.12345679, 1 / 3, -1e21, 2 ** 53 + 2];
    const f: RecordedFrame = {
      ...makeFrame(4, header),
      bodies: [
        { x: [awkward[0], awkward[1], awkward[2]], q: [1, 0, -0, 0], v: [awkward[3], awkward[4], awkward[5]], w: [awkward[6], awkward[7], awkward[8]] },
        { x: [0, 0, 0], q: [Math.SQRT1_2, Math.SQRT1_2, 0, 0], v: [-0, -0, -0], w: [awkward[9], 0, 0] },
        { x: [0, 0, 0], q: [0.5, 0.5, 0.5, 0.5], v: [0, 0, 0], w: [0, 0, 0] },
      ],
      energy: { kinetic: 0.1 + 0.2, potential: -0, total: 1e-300 },
    };
    const hl = serializeHeader(header),
      fl = serializeFrame(f);
    assert.ok(!hl.includes('\n') && !fl.includes('\n'), 'one line each');
    assert.ok(fl.includes('-0'), 'negative zero is written as -0 (JSON.stringify would write 0)');
    const { header: h2, warnings } = parseHeader(hl, 'mem');
    assert.deepStrictEqual(warnings, []);
    assert.deepStrictEqual(h2, header);
    const f2 = parseFrame(fl, 2, 'mem', h2);
    assert.deepStrictEqual(f2, f); // deepStrictEqual compares numbers with Object.is: −0 ≠ 0, every bit counts
    assert.ok(Object.is(f2.bodies[1].v[0], -0));
    assert.equal(f2.bodies[0].x[0], 0.30000000000000004);
    // and through the file writer and reader
    const file = tmpFile('roundtrip.rec.jsonl');
    const w = RecordingWriter.create(file, header);
    w.writeFrame(f);
    w.close();
    const r = RecordingReader.openSync(file);
    try {
      assert.deepStrictEqual(r.header, header);
      assert.deepStrictEqual(r.frame(0), f);
      assert.deepStrictEqual(r.errors, []);
    } finally {
      r.close();
    }
  });

  it('the writer refuses NaN and Infinity, naming the line and field, and writes nothing for that frame', () => {
    const header = makeHeader();
    const file = tmpFile('nan.rec.jsonl');
    const w = RecordingWriter.create(file, header);
    const f = makeFrame(3, header);
    const bad = { ...f, solver: { ...f.solver, lambda: f.solver.lambda.map((x, i) => (i === 4 ? NaN : x)) } };
    assert.throws(
      () => w.writeFrame(bad),
      (e: unknown) => e instanceof FormatError && e.message === `${file}: line 2: solver.lambda[4]: expected a finite number, got NaN`,
    );
    w.writeFrame(f);
    w.close();
    // header, one frame, the closing line (docs/recording-format.md "Closing line"), trailing ''
    assert.deepEqual(lines(file).slice(2), ['{"end":{"frames":1}}', '']);
  });
});

describe('recording format: streaming index and seek', () => {
  it('reads frames of different line lengths in any order with its one reused line buffer (each equals what was written)', () => {
    const file = tmpFile('lengths.rec.jsonl');
    const frames = writeRecording(file, 30);
    const r = RecordingReader.openSync(file);
    try {
      // longest (4 contacts), shortest (0), longest again, then every frame backwards
      const order = [4, 0, 9, 5, 29, 1, ...frames.map((_, i) => frames.length - 1 - i)];
      for (const i of order) assert.deepStrictEqual(r.frame(i), frames[i], `frame ${i}`);
    } finally {
      r.close();
    }
  });

  it('indexes a 2000-frame file in one pass and seeks to random frames', async () => {
    const file = tmpFile('big.rec.jsonl');
    const header = makeHeader();
    const t0 = performance.now();
    const frames = writeRecording(file, 2000, header);
    const writeMs = performance.now() - t0;
    const size = fs.statSync(file).size;
    assert.ok(size > 2 * CHUNK_BYTES, `the file (${size} B) spans several 1 MiB chunks`);
    let progressCalls = 0,
      lastProgress = 0;
    const r = await RecordingReader.open(file, {
      onProgress: (done, total) => {
        progressCalls++;
        lastProgress = done;
        assert.equal(total, size);
      },
    });
    try {
      assert.equal(r.frameCount, 2000);
      assert.deepStrictEqual(r.errors, []);
      assert.deepStrictEqual(r.warnings, []);
      assert.equal(lastProgress, size);
      assert.ok(progressCalls >= 3);
      // a line that straddles a chunk boundary is indexed correctly
      const straddling = [...r.summaries()].filter((s) => Math.floor(s.offset / CHUNK_BYTES) !== Math.floor((s.offset + s.length) / CHUNK_BYTES));
      assert.ok(straddling.length >= 2);
      for (const s of straddling) assert.deepStrictEqual(r.frame(s.index), frames[s.index]);
      const s7 = r.summary(7);
      const f7 = frames[7];
      assert.equal(s7.frame, 21);
      assert.equal(s7.line, 9);
      assert.equal(s7.time, f7.time);
      assert.equal(s7.contacts, 2);
      assert.equal(s7.status, 'failed');
      assert.equal(s7.iterations, 0);
      assert.equal(s7.finalResidual, f7.solver.residuals![1]);
      assert.equal(s7.maxLambdaN, Math.max(f7.solver.lambda[0], f7.solver.lambda[3], 0));
      assert.equal(s7.hasPre, true);
      assert.equal(r.summary(9).hasMatrix, true);
      assert.equal(r.indexOfFrame(3 * 1234), 1234);
      assert.equal(r.indexOfFrame(3 * 1234 + 1), -1);
      const pick = rng(99);
      const idx = Array.from({ length: 300 }, () => Math.floor(pick() * 2000));
      const t1 = performance.now();
      const got = idx.map((i) => r.frame(i));
      const seekMs = (performance.now() - t1) / idx.length;
      idx.forEach((i, k) => assert.deepStrictEqual(got[k], frames[i]));
      assert.throws(() => r.frame(2000), RangeError);
      console.log(
        `      [recording] 2000 frames, ${(size / 1048576).toFixed(2)} MiB: write ${writeMs.toFixed(0)} ms, index ${r.indexMs.toFixed(0)} ms (${(size / 1048576 / (r.indexMs / 1000)).toFixed(0)} MiB/s), seek+parse ${(seekMs * 1000).toFixed(0)} µs per random frame`,
      );
    } finally {
      r.close();
    }
    const rs = RecordingReader.openSync(file);
    try {
      assert.equal(rs.frameCount, 2000);
      assert.deepStrictEqual(rs.frame(1999), frames[1999]);
      console.log(`      [recording] openSync index ${rs.indexMs.toFixed(0)} ms`);
    } finally {
      rs.close();
    }
  });

  it('lines longer than a chunk, long then shorter, are read whole (the indexer reuses one buffer for them)', async () => {
    const file = tmpFile('long-lines.rec.jsonl');
    const header = makeHeader();
    // frames with C contacts and a written A (9C² numbers): C = 200 is a ~7 MB line, 120 ~2.5 MB, 2 a short one
    const sizes = [200, 120, 2, 150, 120, 200, 3];
    const frames = sizes.map((C, k) => {
      const f = makeFrame(5 * k, header); // k % 5 = 0: no contacts; the lines below give it C
      const r = rng(k + 7);
      const n: Vec3 = [0, 0, 1];
      const contacts: RecordedContact[] = Array.from({ length: C }, (_, i) => ({
        a: 1 + (i % 2),
        b: -1,
        point: [r(), r(), r()],
        normal: n,
        t1: [1, 0, 0],
        t2: [0, 1, 0],
        depth: r() * 1e-3,
        mu: 0.5,
        e: 0,
      }));
      return {
        ...f,
        contacts,
        solver: { ...f.solver, lambda: Array.from({ length: 3 * C }, () => r()) },
        A: Array.from({ length: 9 * C * C }, () => r() - 0.5),
        b: Array.from({ length: 3 * C }, () => r()),
      };
    });
    const w = RecordingWriter.create(file, header);
    for (const f of frames) w.writeFrame(f);
    w.close();
    const seen: RecordedFrame[] = [];
    const r = await RecordingReader.open(file, { onFrame: (_, f) => seen.push(f) });
    const rs = RecordingReader.openSync(file, { validate: 'on-read' });
    try {
      assert.ok(r.summary(0).length > 4 * CHUNK_BYTES && r.summary(2).length < CHUNK_BYTES, 'a line of several chunks, then a short one');
      assert.deepStrictEqual(r.errors, []);
      assert.equal(seen.length, frames.length);
      frames.forEach((f, i) => {
        assert.deepStrictEqual(seen[i], f, `frame ${i} as the open parsed it`);
        assert.deepStrictEqual(r.frame(i), f, `frame ${i} read again`);
        assert.equal(rs.summary(i).contacts, sizes[i], `frame ${i}'s contact count from the scanner`);
      });
    } finally {
      r.close();
      rs.close();
    }
  });

  it('indexing can be cancelled', async () => {
    const file = tmpFile('cancel.rec.jsonl');
    writeRecording(file, 1500);
    const ac = new AbortController();
    await assert.rejects(
      RecordingReader.open(file, { signal: ac.signal, onProgress: () => ac.abort(new Error('cancelled by the user')) }),
      /cancelled by the user/,
    );
  });

  it('notices when the file was rewritten under it', () => {
    const file = tmpFile('changed.rec.jsonl');
    writeRecording(file, 10);
    const r = RecordingReader.openSync(file);
    try {
      const text = fs.readFileSync(file, 'utf8').split('\n');
      fs.writeFileSync(file, text.slice(0, 5).join('\n') + '\n');
      assert.throws(() => r.frame(8), /changed on disk since it was opened/);
    } finally {
      r.close();
    }
  });
});

describe('recording format: bad lines are reported with line and field, the rest stays readable', () => {
  const header = makeHeader();
  const cases: { name: string; edit: (o: Record<string, any>, line: string) => string; field: string; detail: RegExp }[] = [
    { name: 'wrong field type', edit: (o) => JSON.stringify({ ...o, time: '0.5' }), field: 'time', detail: /expected a finite number, got "0.5"/ },
    {
      name: 'NaN token',
      edit: (_o, l) => l.replace(/"normal":\[[^\]]*\]/, '"normal":[0,NaN,1]'),
      field: 'contacts[0].normal[1]',
      detail: /is NaN, which is not a JSON number/,
    },
    { name: 'C printf -nan token', edit: (_o, l) => l.replace(/"lambda":\[[^,]*/, '"lambda":[-nan'), field: 'solver.lambda[0]', detail: /is -nan/ },
    {
      name: 'Infinity token in a free-form field',
      edit: (_o, l) => l.replace(/"kinetic":[^,}]*/, '"kinetic":Infinity'),
      field: 'energy.kinetic',
      detail: /is Infinity/,
    },
    {
      name: 'null for a number (serde_json NaN)',
      edit: (o) => {
        o.bodies[1].v[2] = null;
        return JSON.stringify(o);
      },
      field: 'bodies[1].v[2]',
      detail: /got null .*probably not finite/,
    },
    {
      name: 'non-unit normal',
      edit: (o) => {
        o.contacts[1].normal = o.contacts[1].normal.map((x: number) => 1.01 * x);
        return JSON.stringify(o);
      },
      field: 'contacts[1].normal',
      detail: /not a unit vector: length 1\.00999\d* \(\|length − 1\| = 1\.00e-2 > 1e-6\)/,
    },
    {
      name: 'left-handed tangents',
      edit: (o) => {
        const c = o.contacts[0];
        [c.t1, c.t2] = [c.t2, c.t1];
        return JSON.stringify(o);
      },
      field: 'contacts[0].t2',
      detail: /left-handed/,
    },
    {
      name: 'λ of wrong length',
      edit: (o) => {
        o.solver.lambda.pop();
        return JSON.stringify(o);
      },
      field: 'solver.lambda',
      detail: /expected 9 numbers \(3C for C = 3 contacts/,
    },
    {
      name: 'A of wrong length',
      edit: (o) => {
        o.A = [1, 2, 3];
        return JSON.stringify(o);
      },
      field: 'A',
      detail: /expected 81 numbers/,
    },
    {
      name: 'body index out of range',
      edit: (o) => {
        o.contacts[2].b = 3;
        return JSON.stringify(o);
      },
      field: 'contacts[2].b',
      detail: /expected −1 \(static world\) or a body index 0…2/,
    },
    {
      name: 'frame number not increasing',
      edit: (o) => JSON.stringify({ ...o, frame: 1 }),
      field: 'frame',
      detail: /is 1 after frame 21; frame numbers must strictly increase/,
    },
    {
      name: 'unknown status',
      edit: (o) => {
        o.solver.status = 'ok';
        return JSON.stringify(o);
      },
      field: 'solver.status',
      detail: /expected one of "converged"/,
    },
    { name: 'malformed JSON', edit: (_o, l) => l.slice(0, 40) + '}' + l.slice(40), field: '(json)', detail: /malformed JSON/ },
    {
      name: 'wrong number of body states',
      edit: (o) => {
        o.bodies.pop();
        return JSON.stringify(o);
      },
      field: 'bodies',
      detail: /expected 3 body states/,
    },
    {
      name: 'negative depth',
      edit: (o) => {
        o.contacts[0].depth = -0.001;
        return JSON.stringify(o);
      },
      field: 'contacts[0].depth',
      detail: /must be ≥ 0/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const file = tmpFile('bad.rec.jsonl');
      const frames = writeRecording(file, 12, header);
      const text = lines(file);
      // line 10 holds frame index 8: 3 contacts (8 % 5), frame number 24; the previous frame is 21.
      const target = 10;
      const o = JSON.parse(text[target - 1]);
      text[target - 1] = c.edit(o, text[target - 1]);
      fs.writeFileSync(file, text.join('\n'));
      const r = RecordingReader.openSync(file);
      try {
        assert.equal(r.errorCount, 1, JSON.stringify(r.errors));
        const issue = r.errors[0];
        assert.equal(issue.line, target);
        const prefix = `${file}: line ${target}: ${c.field}: `;
        assert.ok(issue.message.startsWith(prefix), `expected "${prefix}…", got "${issue.message}"`);
        assert.match(issue.message.slice(prefix.length), c.detail);
        assert.equal(r.frameCount, 11);
        // every other frame is readable and exact, including the ones after the bad line
        for (let i = 0; i < r.frameCount; i++) {
          const k = i < 8 ? i : i + 1;
          assert.deepStrictEqual(r.frame(i), frames[k]);
        }
        assert.equal(r.indexOfFrame(24), -1);
      } finally {
        r.close();
      }
    });
  }

  it('parseFrame throws a FormatError whose message is "file: line N: field: detail"', () => {
    const f = makeFrame(3, header);
    const l = serializeFrame(f).replace(`"status":"${f.solver.status}"`, '"status":7');
    assert.throws(
      () => parseFrame(l, 17, 'x.rec.jsonl', header),
      (e: unknown) =>
        e instanceof FormatError &&
        e.file === 'x.rec.jsonl' &&
        e.field === 'line 17: solver.status' &&
        e.message.startsWith('x.rec.jsonl: line 17: solver.status: expected one of'),
    );
  });

  it('a truncated last line is reported and every earlier frame opens', async () => {
    const file = tmpFile('truncated.rec.jsonl');
    const frames = writeRecording(file, 30, header);
    const text = fs.readFileSync(file, 'utf8');
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    fs.writeFileSync(file, text.slice(0, lastStart + Math.floor((text.length - lastStart) / 2)));
    const r = await RecordingReader.open(file);
    try {
      assert.equal(r.frameCount, 29);
      assert.equal(r.errors.length, 1);
      assert.equal(r.errors[0].line, 31);
      assert.match(
        r.errors[0].message,
        new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: line 31: \\(json\\): the last line is incomplete \\(no newline at the end of the file`),
      );
      for (let i = 0; i < 29; i++) assert.deepStrictEqual(r.frame(i), frames[i]);
    } finally {
      r.close();
    }
    // A complete last line without a newline is read normally.
    fs.writeFileSync(file, text.slice(0, -1));
    const r2 = RecordingReader.openSync(file);
    try {
      assert.equal(r2.frameCount, 30);
      assert.deepStrictEqual(r2.errors, []);
      assert.deepStrictEqual(r2.frame(29), frames[29]);
    } finally {
      r2.close();
    }
  });

  it('blank lines, CRLF line ends and a UTF-8 BOM are accepted; line numbers stay physical', () => {
    const file = tmpFile('crlf.rec.jsonl');
    const frames = writeRecording(file, 5, header);
    const text = lines(file).filter((l) => l !== '');
    const withBlank = [text[0], text[1], '', '   ', ...text.slice(2)].join('\r\n') + '\r\n';
    fs.writeFileSync(file, '\uFEFF' + withBlank);
    const r = RecordingReader.openSync(file);
    try {
      assert.deepStrictEqual(r.errors, []);
      assert.equal(r.frameCount, 5);
      assert.equal(r.summary(1).line, 5);
      for (let i = 0; i < 5; i++) assert.deepStrictEqual(r.frame(i), frames[i]);
    } finally {
      r.close();
    }
  });

  it('unknown fields warn once per field with a count and a suggestion; "x-" extensions are silent', () => {
    const file = tmpFile('unknown.rec.jsonl');
    writeRecording(file, 6, header);
    const text = lines(file).map((l, i) => (i === 0 || l === '' ? l : l.replace('"lambda":', '"x-engine-stat":1,"lamda":[],"lambda":')));
    fs.writeFileSync(file, text.join('\n'));
    const r = RecordingReader.openSync(file);
    try {
      assert.equal(r.frameCount, 6);
      assert.deepStrictEqual(r.warnings, [
        `${file}: line 2: solver.lamda: unknown field, ignored (did you mean "lambda"?); vendor extensions start with "x-" (and on 5 more lines)`,
      ]);
    } finally {
      r.close();
    }
  });

  it('an empty file and a file without header are rejected', () => {
    const empty = tmpFile('empty.rec.jsonl');
    fs.writeFileSync(empty, '');
    assert.throws(
      () => RecordingReader.openSync(empty),
      (e: unknown) => e instanceof FormatError && /line 1: the file is empty/.test(e.message),
    );
    const noHeader = tmpFile('noheader.rec.jsonl');
    fs.writeFileSync(noHeader, serializeFrame(makeFrame(1, header)) + '\n');
    assert.throws(() => RecordingReader.openSync(noHeader), /line 1: format: the first line must be the recording header, but it looks like a frame/);
  });
});

describe('recording format: header validation', () => {
  const good = (): Record<string, any> => JSON.parse(serializeHeader(makeHeader()));
  const reject = (edit: (h: Record<string, any>) => void, field: string, detail: RegExp): void => {
    const h = good();
    edit(h);
    assert.throws(
      () => parseHeader(JSON.stringify(h), 'h.rec.jsonl'),
      (e: unknown) => {
        assert.ok(e instanceof FormatError, String(e));
        assert.equal(e.field, `line 1: ${field}`, e.message);
        assert.match(e.message, detail);
        return true;
      },
    );
  };

  // Declared conventions other than ours are converted on read (test/unit/conventions.test.ts; issue: engine
  // authors had to convert by hand); values outside the accepted sets are still refused with what to write.
  it('rejects unknown conventions with the accepted values', () => {
    reject(
      (h) => {
        h.conventions.quaternion = 'zyxw';
      },
      'conventions.quaternion',
      /got "zyxw": declare "wxyz" \(ours: scalar first, body → world\) or "xyzw"/,
    );
    reject(
      (h) => {
        h.conventions.normal = 'a-into-b';
      },
      'conventions.normal',
      /declare "b-to-a" .* or "a-to-b" \(Box2D/,
    );
    reject(
      (h) => {
        h.conventions.up = 'x';
      },
      'conventions.up',
      /got "x": declare "z" \(ours\) or "y"/,
    );
    reject(
      (h) => {
        h.conventions.impulse = 'momentum';
      },
      'conventions.impulse',
      /"force" \(λ·Δt on read\)/,
    );
    reject(
      (h) => {
        h.conventions.angularVelocity = 'local';
      },
      'conventions.angularVelocity',
      /declare "world" \(ours\) or "body"/,
    );
    reject(
      (h) => {
        delete h.conventions;
      },
      'conventions',
      /expected an object, got nothing/,
    );
    reject(
      (h) => {
        h.units = 'cgs';
      },
      'units',
      /expected "SI"/,
    );
    reject(
      (h) => {
        h.version = 2;
      },
      'version',
      /understands version 1 only/,
    );
    reject(
      (h) => {
        h.format = 'bullet-dump';
      },
      'format',
      /not a Contact Lens recording/,
    );
  });

  it('rejects inconsistent bodies with a clear field', () => {
    reject(
      (h) => {
        h.bodies[1].mass = 0;
      },
      'bodies[1].mass',
      /write mass: null and static: true/,
    );
    reject(
      (h) => {
        h.bodies[1].static = true;
      },
      'bodies[1].mass',
      /static is true/,
    );
    reject(
      (h) => {
        h.bodies[0].static = false;
      },
      'bodies[0].mass',
      /is null \(a static body\) but static is false/,
    );
    reject(
      (h) => {
        h.bodies[1].inertia = [1, 2];
      },
      'bodies[1].inertia',
      /3 principal moments or a 3×3 tensor/,
    );
    reject(
      (h) => {
        h.bodies[2].inertia = [1, 0.5, 0, 0.4, 2, 0, 0, 0, 3];
      },
      'bodies[2].inertia[1]',
      /not symmetric/,
    );
    reject(
      (h) => {
        h.bodies[1].inertia = [1, -1, 1];
      },
      'bodies[1].inertia[1]',
      /must be > 0/,
    );
    reject(
      (h) => {
        h.bodies[0].shape.plane.normal = [0, 0, 2];
      },
      'bodies[0].shape.plane.normal',
      /not a unit vector/,
    );
    reject(
      (h) => {
        h.bodies[1].shape = { box: {}, sphere: {} };
      },
      'bodies[1].shape',
      /exactly one of/,
    );
    reject(
      (h) => {
        h.dt = 0;
      },
      'dt',
      /must be > 0/,
    );
    reject(
      (h) => {
        h.gravity = [0, 0, null];
      },
      'gravity[2]',
      /got null/,
    );
  });

  it('accepts unknown shapes with a warning, and warns about implausible inertia and unknown fields', () => {
    const h = good();
    h.bodies[1].shape = { capsule: { radius: 0.1, halfHeight: 0.3 } };
    h.bodies.push({ name: 'mesh', shape: { other: { type: 'convex-hull', vertices: 12 } }, mass: 1, inertia: [0.1, 0.1, 0.1], static: false });
    h.bodies[2].inertia = [1 / 0.003, 1 / 0.003, 1 / 0.003];
    h.bodies[2].shape = { sphere: { radius: 0.1 } };
    h.producr = 'typo';
    h['x-acme'] = { anything: true };
    const { header, warnings } = parseHeader(JSON.stringify(h), 'h.rec.jsonl');
    assert.deepStrictEqual(header.bodies[1].shape, { other: { type: 'capsule', radius: 0.1, halfHeight: 0.3 } });
    assert.deepStrictEqual(header.bodies[3].shape, { other: { type: 'convex-hull', vertices: 12 } });
    assert.equal(warnings.length, 4, warnings.join('\n'));
    assert.match(warnings.join('\n'), /line 1: producr: unknown field, ignored \(did you mean "producer"\?\)/);
    assert.match(warnings.join('\n'), /bodies\[1\]\.shape\.capsule: unknown shape kind "capsule"/);
    assert.match(warnings.join('\n'), /bodies\[3\]\.shape\.other: shape "convex-hull" unknown to Contact Lens: accepted/);
    assert.match(warnings.join('\n'), /bodies\[2\]\.inertia: differs from a solid sphere of 0.30000000000000004 kg .*inverse inertia/);
  });
});

describe('recording format: writer safety', () => {
  it('refuses to overwrite an existing file unless { force: true }', () => {
    const file = tmpFile('exists.rec.jsonl');
    fs.writeFileSync(file, 'precious data\n');
    assert.throws(
      () => RecordingWriter.create(file, makeHeader()),
      (e: unknown) =>
        e instanceof Error && e.message === `${file}: already exists; refusing to overwrite it (choose another name, or pass { force: true } to replace it)`,
    );
    assert.equal(fs.readFileSync(file, 'utf8'), 'precious data\n');
    const w = RecordingWriter.create(file, makeHeader(), { force: true });
    w.writeFrame(makeFrame(0, makeHeader()));
    w.close();
    w.close(); // idempotent
    assert.throws(() => w.writeFrame(makeFrame(1, makeHeader())), /closed/);
    const r = RecordingReader.openSync(file);
    assert.equal(r.frameCount, 1);
    r.close();
  });

  it('validates the header before creating the file and frames before writing them', () => {
    const file = tmpFile('invalid.rec.jsonl');
    const bad = { ...makeHeader(), conventions: { ...CONV, quaternion: 'xyzw' } } as unknown as RecordingHeader;
    assert.throws(() => RecordingWriter.create(file, bad), /conventions\.quaternion/);
    assert.equal(fs.existsSync(file), false);
    const w = RecordingWriter.create(file, makeHeader());
    w.writeFrame(makeFrame(2, makeHeader()));
    assert.throws(() => w.writeFrame(makeFrame(1, makeHeader())), /line 3: frame: is 3 after frame 6/);
    w.close();
    const r = RecordingReader.openSync(file);
    assert.equal(r.frameCount, 1);
    r.close();
  });

  it('writes the header\'s top-level vendor extensions ("x-" keys) and the reader still opens the file without a warning', () => {
    // Bug: serializeHeader wrote only the documented keys, so a writer's "x-lambda-source" was lost.
    const file = tmpFile('vendor.rec.jsonl');
    const h = { ...makeHeader(), 'x-lambda-source': 'fitted', 'x-acme': { island: 3 } } as RecordingHeader;
    RecordingWriter.create(file, h).close();
    const first = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]) as Record<string, unknown>;
    assert.equal(first['x-lambda-source'], 'fitted');
    assert.deepEqual(first['x-acme'], { island: 3 });
    const r = RecordingReader.openSync(file);
    assert.deepEqual(r.warnings, []);
    r.close();
  });
});

describe('recording format: the foreign-engine example and the documentation', () => {
  it('examples/foreign-engine.rec.jsonl opens cleanly and is physically consistent', async () => {
    const r = await RecordingReader.open(EXAMPLE);
    try {
      assert.deepStrictEqual(r.errors, []);
      assert.deepStrictEqual(r.warnings, []);
      assert.equal(r.header.producer.name, 'acme-physics');
      assert.equal(r.frameCount, 6);
      const h = r.header;
      const crate = h.bodies[1];
      assert.equal(crate.mass, 2);
      const frames = Array.from({ length: r.frameCount }, (_, i) => r.frame(i));
      for (const f of frames) {
        const pre = f.pre![1],
          post = f.bodies[1];
        // Δv of the crate = Σ(J_v λ)/m: every normal is +z, tangents x and y.
        let fx = 0,
          fy = 0,
          fz = 0;
        f.contacts.forEach((c, i) => {
          assert.deepStrictEqual(
            [c.normal, c.t1, c.t2],
            [
              [0, 0, 1],
              [1, 0, 0],
              [0, 1, 0],
            ],
          );
          const l = f.solver.lambda;
          fz += l[3 * i];
          fx += l[3 * i + 1];
          fy += l[3 * i + 2];
        });
        assert.ok(Math.abs(post.v[2] - pre.v[2] - fz / 2) < 1e-5, `frame ${f.frame}: vz`);
        assert.ok(Math.abs(post.v[0] - pre.v[0] - fx / 2) < 1e-5 && Math.abs(post.v[1] - pre.v[1] - fy / 2) < 1e-5, `frame ${f.frame}: vxy`);
        // gravity between frames: pre v = previous post v + g·dt
        const prev = frames[f.frame - 1];
        if (prev) assert.ok(Math.abs(pre.v[2] - (prev.bodies[1].v[2] - 9.81 * h.dt)) < 1e-5, `frame ${f.frame}: gravity`);
      }
      // Frame 4: one λn is ~7.5× the others, the solver hit its limit, the total energy jumps.
      const s4 = r.summary(4);
      assert.equal(s4.status, 'max-iterations');
      assert.equal(s4.maxLambdaN, 0.6);
      assert.ok(frames[4].energy!.total - frames[3].energy!.total > 0.3);
      // The recorded A and b of frame 4 are what our assembly rebuilds from the contacts, masses and pre velocities.
      const states = preSolveBodyStates(h, frames[4], frames[3]);
      assert.ok(states.ok);
      const p = assembleProblem(states.bodies, frames[4].contacts.map(toContactPoint), {
        dt: h.dt,
        erp: h.solver!.erp as number,
        slop: h.solver!.slop as number,
        restVelocityThreshold: h.solver!.restVelocityThreshold as number,
        regularization: 0,
      });
      const A = frames[4].A!,
        b = frames[4].b!;
      for (let i = 0; i < A.length; i++) assert.ok(Math.abs(p.A[i] - A[i]) < 1e-4, `A[${i}]: ${p.A[i]} vs ${A[i]}`);
      for (let i = 0; i < b.length; i++) assert.ok(Math.abs(p.b[i] - b[i]) < 1e-5, `b[${i}]: ${p.b[i]} vs ${b[i]}`);
      // Frame 0 has no previous frame and acme writes no pose in pre: it cannot be re-assembled, and says why.
      const s0 = preSolveBodyStates(h, frames[0]);
      assert.ok(!s0.ok && /pre\[0\] has no pose \(x, q\) and frame -1 is not in the recording/.test(s0.reason));
    } finally {
      r.close();
    }
  });

  it('the complete minimal example in docs/recording-format.md is valid', () => {
    const md = fs.readFileSync(path.join(ROOT, 'docs/recording-format.md'), 'utf8');
    const m = /```jsonl\n([\s\S]*?)```/.exec(md);
    assert.ok(m, 'the docs contain a ```jsonl example');
    const file = tmpFile('docs-example.rec.jsonl');
    fs.writeFileSync(file, m[1]);
    const r = RecordingReader.openSync(file);
    try {
      assert.deepStrictEqual(r.errors, []);
      assert.deepStrictEqual(r.warnings, []);
      assert.equal(r.frameCount, 2);
      const f = r.frame(1);
      assert.equal(f.contacts[0].b, -1);
      assert.equal(f.solver.lambda[0], (1 * 9.81) / 60); // λn = m·g·dt stops the ball
    } finally {
      r.close();
    }
  });

  it('the JSON schemas accept the example files and reject the same mistakes as the reader', () => {
    const headerSchema = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas/recording-header.schema.json'), 'utf8'));
    const frameSchema = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas/recording-frame.schema.json'), 'utf8'));
    checkSchemaKeywords(headerSchema);
    checkSchemaKeywords(frameSchema);
    const md = fs.readFileSync(path.join(ROOT, 'docs/recording-format.md'), 'utf8');
    const docLines = /```jsonl\n([\s\S]*?)```/.exec(md)![1].trim().split('\n');
    const generated = tmpFile('schema.rec.jsonl');
    writeRecording(generated, 10);
    for (const source of [fs.readFileSync(EXAMPLE, 'utf8').trim().split('\n'), docLines, lines(generated).filter((l) => l !== '')]) {
      assert.deepStrictEqual(validateSchema(headerSchema, JSON.parse(source[0])), []);
      for (const l of source.slice(1)) assert.deepStrictEqual(validateSchema(frameSchema, JSON.parse(l)), []);
    }
    const h = JSON.parse(docLines[0]);
    h.conventions.quaternion = 'zyxw'; // 'xyzw' is a declared convention now (converted on read); this one is not
    assert.ok(validateSchema(headerSchema, h).some((e) => e.startsWith('conventions.quaternion')));
    h.conventions.quaternion = 'xyzw';
    assert.deepStrictEqual(validateSchema(headerSchema, h), []);
    const h2 = JSON.parse(docLines[0]);
    h2.bodies[0].mass = null;
    assert.ok(validateSchema(headerSchema, h2).length > 0, 'a null mass with static: false fails the schema');
    const f = JSON.parse(docLines[1]);
    f.solver.status = 'done';
    f.contacts[0].lambda = 1;
    const errs = validateSchema(frameSchema, f);
    assert.ok(errs.some((e) => e.startsWith('solver.status')) && errs.some((e) => e.startsWith('contacts[0].lambda')), errs.join('\n'));
  });

  it('format 1.1: the schemas accept the documented initial-state line, manifolds, external impulses and soft parameters, and reject what the reader rejects', () => {
    const read = (name: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', name), 'utf8'));
    const headerSchema = read('recording-header.schema.json'),
      frameSchema = read('recording-frame.schema.json'),
      initialSchema = read('recording-initial.schema.json');
    checkSchemaKeywords(initialSchema);
    const md = fs.readFileSync(path.join(ROOT, 'docs/recording-format.md'), 'utf8');
    const docLines = /```jsonl\n([\s\S]*?)```/.exec(md)![1].trim().split('\n');
    // the documented examples of "Format 1.1 additions"
    const initial = JSON.parse(/```json\n(\{"initial"[^\n]*)\n```/.exec(md)![1]);
    assert.deepStrictEqual(validateSchema(initialSchema, initial), []);
    const manifolds = JSON.parse(`{${/```json\n("manifolds"[\s\S]*?)\n```/.exec(md)![1]}}`).manifolds;
    const external = JSON.parse(`{${/```json\n("external"[^\n]*)\n```/.exec(md)![1]}}`).external;
    const soft = JSON.parse(`{${/```json\n("solver": \{"name": "box2d-v3"[^\n]*)\n```/.exec(md)![1]}}`).solver.soft;
    const h = JSON.parse(docLines[0]);
    h.solver = { ...h.solver, soft, lambdaSource: { normal: 'unavailable', tangent: 'unavailable' } };
    assert.deepStrictEqual(validateSchema(headerSchema, h), []);
    const f = JSON.parse(docLines[1]);
    const withAll = {
      ...f,
      contacts: [{ ...f.contacts[0], soft }],
      manifolds: [{ ...manifolds[0], a: 0, contacts: [0] }],
      external: [{ ...external[0], body: 0 }],
    };
    assert.deepStrictEqual(validateSchema(frameSchema, withAll), []);
    // and the reader accepts the same documents
    const header = parseHeader(JSON.stringify(h), 'doc').header;
    const fr = parseFrame(JSON.stringify(withAll), 2, 'doc', header);
    assert.equal(fr.manifolds?.length, 1);
    assert.equal(fr.external?.[0].stage, 'before-solve');
    // mistakes both refuse: a negative stiffness, an unknown stage, a twist-less manifold λ
    const bad = {
      ...withAll,
      contacts: [{ ...f.contacts[0], soft: { k: -1, c: 0 } }],
      external: [{ ...external[0], body: 0, stage: 'later' }],
      manifolds: [{ ...manifolds[0], a: 0, contacts: [0], lambda: [1, 2] }],
    };
    const errs = validateSchema(frameSchema, bad);
    for (const field of ['contacts[0].soft.k', 'external[0].stage', 'manifolds[0].lambda'])
      assert.ok(
        errs.some((e) => e.startsWith(field)),
        `${field}: ${errs.join('\n')}`,
      );
    assert.throws(() => parseFrame(JSON.stringify(bad), 2, 'doc', header), /line 2: contacts\[0\]\.soft\.k: is -1/);
  });
});

// ─── a small JSON Schema draft-07 subset validator (only the keywords the schemas use; others are refused) ───

const KEYWORDS = new Set([
  '$schema',
  'title',
  'description',
  'type',
  'required',
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'exclusiveMinimum',
  'minLength',
  'const',
  'enum',
  'oneOf',
  'anyOf',
  '$ref',
  'definitions',
]);

function checkSchemaKeywords(s: unknown, where = '#'): void {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return;
  for (const [k, v] of Object.entries(s)) {
    assert.ok(KEYWORDS.has(k), `${where}: keyword "${k}" is not supported by the test validator`);
    if (k === 'properties' || k === 'patternProperties' || k === 'definitions')
      for (const [n, sub] of Object.entries(v as object)) checkSchemaKeywords(sub, `${where}/${k}/${n}`);
    else if (k === 'oneOf' || k === 'anyOf') (v as unknown[]).forEach((sub, i) => checkSchemaKeywords(sub, `${where}/${k}/${i}`));
    else if (k === 'items' || k === 'additionalProperties') checkSchemaKeywords(v, `${where}/${k}`);
  }
}

function validateSchema(root: any, value: unknown): string[] {
  const errors: string[] = [];
  const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  const go = (s: any, v: unknown, p: string): void => {
    const at = p || '(root)';
    if (s.$ref) {
      go(
        s.$ref
          .split('/')
          .slice(1)
          .reduce((o: any, k: string) => o[k], root),
        v,
        p,
      );
    }
    if (s.type) {
      const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
      const t = typeOf(v);
      if (!types.some((x) => x === t || (x === 'integer' && t === 'number' && Number.isInteger(v)))) {
        errors.push(`${at}: expected ${types.join('|')}, got ${t}`);
        return;
      }
    }
    if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(v)) errors.push(`${at}: expected ${JSON.stringify(s.const)}`);
    if (s.enum && !s.enum.includes(v)) errors.push(`${at}: not one of ${s.enum.join(', ')}`);
    if (typeof v === 'number') {
      if (s.minimum !== undefined && v < s.minimum) errors.push(`${at}: < ${s.minimum}`);
      if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) errors.push(`${at}: ≤ ${s.exclusiveMinimum}`);
    }
    if (typeof v === 'string' && s.minLength !== undefined && v.length < s.minLength) errors.push(`${at}: too short`);
    if (Array.isArray(v)) {
      if (s.minItems !== undefined && v.length < s.minItems) errors.push(`${at}: fewer than ${s.minItems} items`);
      if (s.maxItems !== undefined && v.length > s.maxItems) errors.push(`${at}: more than ${s.maxItems} items`);
      if (s.items) v.forEach((x, i) => go(s.items, x, `${p}[${i}]`));
    }
    if (typeOf(v) === 'object') {
      const o = v as Record<string, unknown>;
      for (const r of s.required ?? []) if (!(r in o)) errors.push(`${p ? p + '.' : ''}${r}: required`);
      for (const [k, x] of Object.entries(o)) {
        const kp = p ? `${p}.${k}` : k;
        let matched = false;
        if (s.properties && k in s.properties) {
          matched = true;
          go(s.properties[k], x, kp);
        }
        for (const [re, sub] of Object.entries(s.patternProperties ?? {}))
          if (new RegExp(re).test(k)) {
            matched = true;
            go(sub, x, kp);
          }
        if (!matched && s.additionalProperties === false) errors.push(`${kp}: not allowed`);
        else if (!matched && typeof s.additionalProperties === 'object') go(s.additionalProperties, x, kp);
      }
    }
    const sub = (list: any[]): number =>
      list.filter((x) => {
        const before = errors.length;
        go(x, v, p);
        const ok = errors.length === before;
        errors.length = before;
        return ok;
      }).length;
    if (s.oneOf && sub(s.oneOf) !== 1) errors.push(`${at}: matches ${sub(s.oneOf)} of the oneOf alternatives, expected exactly 1`);
    if (s.anyOf && sub(s.anyOf) === 0) errors.push(`${at}: matches none of the anyOf alternatives`);
  };
  go(root, value, '');
  return errors;
}

describe("recording format: 'on-read' validation (index scanner, docs/recording-format.md)", () => {
  const header = makeHeader();
  const open = (file: string, validate: 'every-line' | 'on-read'): RecordingReader => RecordingReader.openSync(file, { validate });

  it('indexes the same summaries as validating every line, and frames read back exactly', async () => {
    const file = tmpFile('scan.rec.jsonl');
    const frames = writeRecording(file, 40, header);
    const full = open(file, 'every-line'),
      fast = open(file, 'on-read'),
      fastAsync = await RecordingReader.open(file, { validate: 'on-read' });
    try {
      assert.equal(fast.frameCount, 40);
      assert.equal(fast.scannedLines, 39, 'every frame line after the first is scanned, not parsed');
      assert.equal(fast.parsedLines, 1);
      assert.equal(full.scannedLines, 0);
      for (let i = 0; i < 40; i++) {
        assert.deepStrictEqual(fast.summary(i), full.summary(i));
        assert.deepStrictEqual(fastAsync.summary(i), full.summary(i));
        assert.deepStrictEqual(fast.frame(i), frames[i]);
      }
      assert.deepStrictEqual(fast.errors, []);
    } finally {
      full.close();
      fast.close();
      fastAsync.close();
    }
  });

  // Lines the scanner must hand to the validating parser (listed at open, as with 'every-line'), and lines
  // it indexes whose remaining checks run when the frame is read: the message is the same either way.
  const edits: { name: string; edit: (line: string, o: Record<string, any>) => string; atOpen: boolean }[] = [
    { name: 'NaN token', edit: (l) => l.replace(/"depth":[^,]+/, '"depth":NaN'), atOpen: true },
    { name: 'missing bracket', edit: (l) => l.replace('"contacts":[', '"contacts":'), atOpen: true },
    { name: 'number with two points in λ', edit: (l) => l.replace(/"lambda":\[(-?\d+)\.(\d+)/, '"lambda":[$1.$2.5'), atOpen: true },
    { name: 'unbalanced brackets in a body state', edit: (l) => l.replace(/"x":\[/, '"x":[['), atOpen: true },
    // the tokens of what the index does not read are checked when the frame is read
    { name: 'number with two points in a body state', edit: (l) => l.replace(/"x":\[(-?\d+)\.(\d+)/, '"x":[$1.$2.5'), atOpen: false },
    { name: 'NaN in a contact point', edit: (l) => l.replace(/"point":\[[^,\]]+/, '"point":[NaN'), atOpen: false },
    { name: 'λ of wrong length', edit: (_, o) => JSON.stringify({ ...o, solver: { ...o.solver, lambda: o.solver.lambda.slice(1) } }), atOpen: true },
    { name: 'status not a string', edit: (_, o) => JSON.stringify({ ...o, solver: { ...o.solver, status: 7 } }), atOpen: true },
    { name: 'frame number not increasing', edit: (_, o) => JSON.stringify({ ...o, frame: 0 }), atOpen: true },
    { name: 'duplicate contacts key', edit: (l) => l.replace('"solver":', '"contacts":[],"solver":'), atOpen: true },
    { name: 'escaped key naming a read field', edit: (l) => l.replace('"solver":', '"fr\\u0061me":1,"solver":'), atOpen: true },
    { name: 'nested λ', edit: (_, o) => JSON.stringify({ ...o, solver: { ...o.solver, lambda: [o.solver.lambda] } }), atOpen: true },
    {
      name: 'non-unit normal',
      edit: (_, o) => JSON.stringify({ ...o, contacts: o.contacts.map((c: any) => ({ ...c, normal: c.normal.map((x: number) => 1.01 * x) })) }),
      atOpen: false,
    },
    { name: 'body index out of range', edit: (_, o) => JSON.stringify({ ...o, contacts: o.contacts.map((c: any) => ({ ...c, a: 9 })) }), atOpen: false },
  ];
  for (const c of edits) {
    it(`${c.name}: ${c.atOpen ? 'listed at open' : 'reported when the frame is read'}, with the message of 'every-line'`, () => {
      const file = tmpFile('scan-bad.rec.jsonl');
      const frames = writeRecording(file, 12, header);
      const text = lines(file);
      const target = 10; // frame index 8: 3 contacts
      text[target - 1] = c.edit(text[target - 1], JSON.parse(text[target - 1]));
      fs.writeFileSync(file, text.join('\n'));
      const full = open(file, 'every-line'),
        fast = open(file, 'on-read');
      try {
        assert.equal(full.errorCount, 1, JSON.stringify(full.errors));
        const expected = full.errors[0].message;
        if (c.atOpen) {
          assert.deepStrictEqual(fast.errors, full.errors);
          assert.equal(fast.frameCount, 11);
        } else {
          assert.deepStrictEqual(fast.errors, []);
          assert.equal(fast.frameCount, 12);
          assert.throws(
            () => fast.frame(8),
            (e: unknown) => e instanceof FormatError && e.message === expected,
          );
        }
        for (let i = 0; i < 12; i++) if (i !== 8) assert.deepStrictEqual(fast.frame(i < 8 || !c.atOpen ? i : i - 1), frames[i]);
      } finally {
        full.close();
        fast.close();
      }
    });
  }

  it('blocked-gzip recordings are scanned the same way', () => {
    const file = tmpFile('scan.rec.jsonl.gz');
    const w = RecordingWriter.create(file, header, { gzip: true });
    const frames = Array.from({ length: 25 }, (_, k) => makeFrame(k, header));
    for (const f of frames) w.writeFrame(f);
    w.close();
    const full = open(file, 'every-line'),
      fast = open(file, 'on-read');
    try {
      assert.ok(fast.compressed);
      assert.equal(fast.scannedLines, 24);
      for (let i = 0; i < 25; i++) {
        assert.deepStrictEqual(fast.summary(i), full.summary(i));
        assert.deepStrictEqual(fast.frame(i), frames[i]);
      }
    } finally {
      full.close();
      fast.close();
    }
  });

  it('a truncated last line is reported at open', () => {
    const file = tmpFile('scan-truncated.rec.jsonl');
    writeRecording(file, 30, header);
    const text = fs.readFileSync(file, 'utf8');
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    fs.writeFileSync(file, text.slice(0, lastStart + Math.floor((text.length - lastStart) / 2)));
    const full = open(file, 'every-line'),
      fast = open(file, 'on-read');
    try {
      assert.equal(fast.frameCount, 29);
      assert.deepStrictEqual(fast.errors, full.errors);
      assert.match(fast.errors[0].message, /line 31: \(json\): the last line is incomplete/);
    } finally {
      full.close();
      fast.close();
    }
  });
});
