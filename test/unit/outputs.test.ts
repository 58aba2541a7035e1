/**
 * What the CLI writes (compress, simulate): never onto one of its inputs (by device and inode: a hard link is
 * the same file), complete or not at all (a temporary name in the same folder, renamed when complete: a
 * failure or Ctrl-C leaves no partial output, an existing output stays as it was), frames checked against
 * the frames read; and every message that echoes a file name escapes its control characters.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as zlib from 'node:zlib';
import { bgzfBlockSize } from '../../src/format/bgzf.js';
import { RecordingReader } from '../../src/format/recordingFile.js';
import { runCliAsync as cli } from '../cliRun.js';

const ROOT = resolve(__dirname, '..', '..');
const SCENE = join(ROOT, 'examples', 'box-stack-10.scene.json');

const leftovers = (dir: string): string[] => fs.readdirSync(dir).filter((n) => n.endsWith('.partial'));

describe('CLI outputs: never onto an input, complete or not at all, names escaped', function () {
  this.timeout(120_000);
  const dir = fs.mkdtempSync(join(tmpdir(), 'contact-lens-outputs-'));
  const plain = join(dir, 'stack.rec.jsonl');
  before(async () => {
    const r = await cli(['simulate', SCENE, '--frames', '40', '--out', plain]);
    assert.equal(r.code, 0, r.err.join('\n'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('compress onto a hard link of its input is refused before anything is written; the input is untouched (was: truncated to 28 bytes)', async () => {
    const before = fs.readFileSync(plain);
    const link = join(dir, 'link.rec.jsonl.gz');
    fs.linkSync(plain, link);
    const r = await cli(['compress', plain, link, '--force']);
    assert.equal(r.code, 2);
    assert.equal(r.err.length, 1);
    assert.match(r.err[0], /link\.rec\.jsonl\.gz: is the input file .*stack\.rec\.jsonl \(the same file by device and inode\)/);
    assert.ok(fs.readFileSync(plain).equals(before), 'the input is as it was');
    const sym = join(dir, 'sym.rec.jsonl.gz');
    fs.symlinkSync(plain, sym);
    assert.equal((await cli(['compress', plain, sym, '--force'])).code, 2);
    assert.ok(fs.readFileSync(plain).equals(before));
    assert.deepEqual(leftovers(dir), []);
  });

  it('simulate --out onto a hard link of the scene file is refused; the scene is untouched', async () => {
    const scene = join(dir, 'copy.scene.json');
    fs.copyFileSync(SCENE, scene);
    const link = join(dir, 'scene-link.rec.jsonl');
    fs.linkSync(scene, link);
    const r = await cli(['simulate', scene, '--frames', '3', '--out', link, '--force']);
    assert.equal(r.code, 2);
    assert.match(r.err[0], /is the input file/);
    assert.ok(fs.readFileSync(scene).equals(fs.readFileSync(SCENE)));
  });

  it('compress on a corrupt input leaves an existing output as it was (was: deleted) and nothing else behind', async () => {
    const out = join(dir, 'keep.rec.jsonl.gz');
    fs.writeFileSync(out, 'my earlier output\n');
    const corrupt = join(dir, 'corrupt.rec.jsonl');
    fs.writeFileSync(corrupt, 'this is not a recording\n');
    const r = await cli(['compress', corrupt, out, '--force']);
    assert.equal(r.code, 2);
    assert.equal(fs.readFileSync(out, 'utf8'), 'my earlier output\n');
    assert.deepEqual(leftovers(dir), []);
  });

  it('compress writes exactly the frames the reader finds in a damaged blocked-gzip input, and says which bytes were lost', async () => {
    const gz = join(dir, 'whole.rec.jsonl.gz');
    assert.equal((await cli(['compress', plain, gz])).code, 0);
    const bytes = fs.readFileSync(gz);
    let at = 0;
    for (let k = 0; k < 3; k++) at += bgzfBlockSize(bytes, at) as number;
    bytes[at + 30] ^= 0x55; // inside the fourth block's deflate data
    const damaged = join(dir, 'damaged.rec.jsonl.gz');
    fs.writeFileSync(damaged, bytes);
    const out = join(dir, 'recompressed.rec.jsonl.gz');
    const r = await cli(['compress', damaged, out]);
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.ok(
      r.err.some((l) => l.includes(`(compressed bytes at ${at})`) && /lines there are lost/.test(l)),
      r.err.join('\n'),
    );
    const a = RecordingReader.openSync(damaged),
      b = RecordingReader.openSync(out),
      orig = RecordingReader.openSync(plain);
    try {
      assert.ok(a.frameCount < orig.frameCount && a.frameCount > 30, `${a.frameCount} of ${orig.frameCount}`);
      assert.equal(b.frameCount, a.frameCount);
      for (let i = 0; i < b.frameCount; i++) {
        assert.deepEqual(b.frame(i), a.frame(i));
        assert.deepEqual(b.frame(i), orig.frame(orig.indexOfFrame(b.summary(i).frame)), 'never a frame that was not in the recording');
      }
    } finally {
      a.close();
      b.close();
      orig.close();
    }
  });

  it('compress of a plain gzip with a damaged member refuses and writes nothing (its data is checked only at the member’s end; was: frames that the recording never held)', async () => {
    const lines = fs.readFileSync(plain, 'utf8').split('\n');
    const half = Math.floor(lines.length / 2);
    const m1 = zlib.gzipSync(`${lines.slice(0, half).join('\n')}\n`),
      m2 = Buffer.from(zlib.gzipSync(`${lines.slice(half).join('\n')}`));
    m2[m2.length - 6] ^= 0xff; // the CRC-32 at the member's end: every byte before it inflates "fine"
    const input = join(dir, 'members.rec.jsonl.gz');
    fs.writeFileSync(input, Buffer.concat([m1, m2]));
    const out = join(dir, 'members-out.rec.jsonl.gz');
    const r = await cli(['compress', input, out]);
    assert.equal(r.code, 2);
    assert.equal(r.err.length, 1);
    assert.match(r.err[0], /members\.rec\.jsonl\.gz: cannot be decompressed \(.*\): a plain gzip file is checked only at the end of each member/);
    assert.equal(fs.existsSync(out), false);
    assert.deepEqual(leftovers(dir), []);
  });

  it('Ctrl-C during simulate leaves neither the output nor a temporary file (was: a partial recording)', async () => {
    const out = join(dir, 'interrupted.rec.jsonl');
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'simulate', SCENE, '--frames', '100000', '--out', out], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    await new Promise<void>((resolveStarted, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (/frame \d+\/100000/.test(err)) resolveStarted();
      });
      child.on('exit', () => reject(new Error(`exited before it started: ${err}`)));
    });
    assert.ok(leftovers(dir).length > 0, 'it writes under a temporary name');
    child.kill('SIGINT');
    const signal = await new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, s) => r(s)));
    assert.equal(signal, 'SIGINT');
    assert.equal(fs.existsSync(out), false);
    assert.deepEqual(leftovers(dir), []);
  });

  it('file names with ESC and newlines are escaped in "missing input", "cannot write" and "already exists" messages of every command', async () => {
    const evil = join(dir, 'x\u001b[2J\nfake.rec.jsonl');
    const cases: string[][] = [
      ['report', evil],
      ['diagnose', evil],
      ['solve', evil],
      ['check', evil],
      ['simulate', evil, '--out', join(dir, 'o.rec.jsonl')],
      ['compress', evil, join(dir, 'o.rec.jsonl.gz')],
      ['simulate', SCENE, '--frames', '2', '--out', join(dir, 'missing\u001b]0;t\u0007', 'x.rec.jsonl')],
      ['compress', plain, join(dir, 'missing\u001b[1m', 'x.rec.jsonl.gz')],
    ];
    fs.writeFileSync(`${evil}.out`, 'exists');
    cases.push(['simulate', SCENE, '--frames', '2', '--out', `${evil}.out`], ['compress', plain, `${evil}.out`]);
    for (const args of cases) {
      const r = await cli(args);
      assert.equal(r.code, 2, args.join(' '));
      const text = r.err.join('\n');
      assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(text) && r.err.every((l) => !l.includes('\n')), `${args[0]}: ${JSON.stringify(text)}`);
      assert.match(text, /\\u001b/, `${args[0]}: the escape is shown escaped`);
    }
  });
});
