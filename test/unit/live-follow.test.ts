/**
 * Following a recording while it is written (docs/recording-format.md "Following a recording as it is written"
 * and "Closing line"): the line splitter, the follower, the closing line in the file reader, and
 * `contact-lens diagnose --follow`, which must print the restitution finding of the planted fault while the
 * file is still growing.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LineSplitter } from '../../src/format/lineSplitter.js';
import { RecordingFollower } from '../../src/format/recordingFollow.js';
import { RecordingReader, RecordingWriter } from '../../src/format/recordingFile.js';
import { serializeFrame, serializeHeader } from '../../src/format/recording.js';
import { frameFromWorld, headerFromWorld } from '../../src/format/worldRecording.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { World } from '../../src/engine/world/world.js';
import { main } from '../../src/cli/main.js';

const ROOT = path.resolve(__dirname, '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'contact-lens-follow-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The fault scene's sphere scenario as recording lines (header, then one line per frame). */
function faultLines(frames = 180): { header: string; frames: string[] } {
  const file = path.join(ROOT, 'examples/fault-restitution-target.scene.json');
  const desc = parseSceneFile(fs.readFileSync(file, 'utf8'), file).scenarios[0].desc;
  const world = new World(desc);
  const header = serializeHeader(headerFromWorld(world));
  return { header, frames: Array.from({ length: frames }, () => serializeFrame(frameFromWorld(world, world.step()))) };
}

describe('live: following a recording as it grows', function () {
  this.timeout(120_000);

  it('LineSplitter: lines split across pieces come out whole, an unfinished line is kept, \\r is kept', () => {
    const got: [string, number, number][] = [];
    const s = new LineSplitter(100, { line: (b, off, n) => got.push([b.toString(), off, n]), oversize: () => assert.fail('no oversize') });
    s.push(Buffer.from('ab'));
    s.push(Buffer.from('c\r\nde'));
    assert.deepEqual(got, [['abc\r', 0, 1]]);
    assert.equal(s.unfinishedBytes, 2);
    assert.equal(s.lineBoundary, 5);
    s.push(Buffer.from('f\n\n'));
    assert.deepEqual(got.slice(1), [
      ['def', 5, 2],
      ['', 9, 3],
    ]);
    assert.equal(s.unfinishedBytes, 0);
  });

  it('LineSplitter: a line over the bound is named once, as soon as it passes it, its bytes dropped; the next line reads', () => {
    const lines: string[] = [],
      over: [number, number][] = [];
    const s = new LineSplitter(8, { line: (b) => lines.push(b.toString()), oversize: (off, n) => over.push([off, n]) });
    s.push(Buffer.from('ok\n12345'));
    s.push(Buffer.from('6789'));
    assert.deepEqual(over, [[3, 2]], 'reported before its newline arrived');
    for (let i = 0; i < 100; i++) s.push(Buffer.from('xxxxxxxxxx'));
    assert.equal(over.length, 1, 'once');
    s.push(Buffer.from('yy\nnext\n'));
    assert.deepEqual(lines, ['ok', 'next']);
    assert.equal(s.lines, 3);
  });

  it('RecordingFollower: frames as they are flushed; half a line is waited for, not reported; the closing line ends it', () => {
    const { header, frames } = faultLines(6);
    const file = path.join(tmp, 'grow.rec.jsonl');
    fs.writeFileSync(file, `${header}\n${frames[0]}\n${frames[1].slice(0, 100)}`);
    const f = RecordingFollower.open(file);
    try {
      const a = f.poll();
      assert.deepEqual(
        a.map((e) => e.kind),
        ['header', 'frame'],
      );
      assert.equal(f.unfinishedBytes, 100);
      assert.deepEqual(f.poll(), [], 'nothing new: nothing reported');
      fs.appendFileSync(file, `${frames[1].slice(100)}\n${frames[2]}\n`);
      const b = f.poll();
      assert.deepEqual(
        b.map((e) => (e.kind === 'frame' ? e.frame.frame : e.kind)),
        [1, 2],
      );
      const second = b[0] as Extract<(typeof b)[number], { kind: 'frame' }>;
      assert.equal(
        fs
          .readFileSync(file)
          .subarray(second.offset, second.offset + second.length)
          .toString(),
        frames[1],
        'offset and length name the line',
      );
      fs.appendFileSync(file, '{"frame": broken}\n{"end":{"frames":4}}\n');
      const c = f.poll();
      assert.deepEqual(
        c.map((e) => e.kind),
        ['skipped', 'end'],
      );
      assert.match((c[0] as { message: string }).message, /grow\.rec\.jsonl: line 5: \(json\): malformed JSON/);
      assert.deepEqual(f.end, { frames: 4 });
      assert.equal(f.frameCount, 3);
    } finally {
      f.close();
    }
  });

  it('RecordingFollower: a file rewritten shorter stops following with one message; a gzip file is refused', () => {
    const { header, frames } = faultLines(3);
    const file = path.join(tmp, 'rewritten.rec.jsonl');
    fs.writeFileSync(file, `${header}\n${frames.join('\n')}\n`);
    const f = RecordingFollower.open(file);
    f.poll();
    fs.writeFileSync(file, `${header}\n`);
    const e = f.poll();
    assert.equal(e.length, 1);
    assert.equal(e[0].kind, 'truncated');
    assert.equal(f.done, true);
    f.close();
    const gz = path.join(tmp, 'x.rec.jsonl.gz');
    const w = RecordingWriter.create(gz, JSON.parse(header), { gzip: true, live: false });
    w.close();
    assert.throws(() => RecordingFollower.open(gz), /compressed \(gzip\); only a plain \.rec\.jsonl recording can be followed/);
  });

  it('the closing line: written on close, read by the file reader as the end (no error, no warning, in both validation modes)', () => {
    const { header, frames } = faultLines(3);
    const file = path.join(tmp, 'closed.rec.jsonl');
    const w = RecordingWriter.create(file, JSON.parse(header), { live: false });
    for (const f of frames) w.writeFrame(JSON.parse(f));
    w.close();
    assert.equal(fs.readFileSync(file, 'utf8').trimEnd().split('\n').at(-1), '{"end":{"frames":3}}');
    for (const validate of ['every-line', 'on-read'] as const) {
      const r = RecordingReader.openSync(file, { validate });
      assert.equal(r.frameCount, 3);
      assert.deepEqual(r.errors, []);
      assert.deepEqual(r.warnings, []);
      r.close();
    }
    const bad = path.join(tmp, 'bad-end.rec.jsonl');
    fs.writeFileSync(bad, `${header}\n${frames[0]}\n{"end":{"frames":-1}}\n`);
    const r = RecordingReader.openSync(bad);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0].message, /line 3: end\.frames: is -1; expected the number of frame lines written/);
    r.close();
  });

  it('diagnose --follow prints the restitution finding (frame 27) while the file is still growing, and ends at the closing line', async () => {
    const { header, frames } = faultLines();
    const file = path.join(tmp, 'follow.rec.jsonl');
    fs.writeFileSync(file, `${header}\n`);
    const out: string[] = [],
      err: string[] = [];
    const done = main(['diagnose', '--follow', file, '--idle-exit', '60'], { out: (l) => out.push(l), err: (l) => err.push(l) });
    assert.ok(done instanceof Promise, '--follow answers when following ends');
    // the engine writes frame by frame, flushed, a few milliseconds apart
    let written = 0;
    const seen = (): boolean => out.some((l) => /^\[error\] .*restitution-overshoot, frame 27,/.test(l));
    for (; written < frames.length && !seen(); written++) {
      fs.appendFileSync(file, `${frames[written]}\n`);
      await sleep(written < 40 ? 15 : 40);
    }
    assert.ok(seen(), `the finding was printed: ${out.join('\n')}`);
    assert.ok(written < 60, `printed while the file had ${written} of 180 frames`);
    assert.ok(!fs.readFileSync(file, 'utf8').includes('"end"'), 'the writer has not closed the recording yet');
    // half a line, a pause, the rest: waited for, not reported
    const half = frames[written].length >> 1;
    fs.appendFileSync(file, frames[written].slice(0, half));
    await sleep(300);
    fs.appendFileSync(file, `${frames[written].slice(half)}\n${frames.slice(written + 1).join('\n')}\n{"end":{"frames":180}}\n`);
    assert.equal(await done, 0);
    assert.deepEqual(
      err.filter((l) => /skipped|incomplete/.test(l)),
      [],
    );
    assert.match(err.join('\n'), /closed by the writer after 180 frames/);
    assert.match(out.at(-1)!, /follow\.rec\.jsonl: 180 frames, 4 injection findings, 0 other findings/);
    assert.equal(out.filter((l) => /restitution-overshoot/.test(l)).length, 2, 'frames 27 and 116');
  });

  it('diagnose --follow --idle-exit: stops after the quiet time, names an incomplete last line; --fail-on works as without --follow', async () => {
    const { header, frames } = faultLines(40);
    const file = path.join(tmp, 'idle.rec.jsonl');
    fs.writeFileSync(file, `${header}\n${frames.slice(0, 39).join('\n')}\n${frames[39].slice(0, 50)}`);
    const out: string[] = [],
      err: string[] = [];
    const code = await main(['diagnose', '--follow', file, '--idle-exit', '0.3', '--fail-on', 'injection,skipped-lines'], {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    assert.equal(code, 1, 'the frame-27 injection (and the unfinished line) fail the run');
    assert.match(err.join('\n'), /no growth for 0\.3 s after 39 frames; line 41 is incomplete \(50 bytes, no newline yet\): not read/);
    const usage: string[] = [];
    assert.equal(main(['diagnose', file, '--idle-exit', '3'], { out: () => undefined, err: (l) => usage.push(l) }), 2);
    assert.match(usage.join('\n'), /--idle-exit goes with --follow/);
  });
});
