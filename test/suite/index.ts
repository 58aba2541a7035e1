/**
 * The ONE mocha runner for the integration suite, used as `extensionTestsPath` both by code-server
 * (scripts/vscode-host/run-suite.mjs, node extension host of the VS Code server) and by @vscode/test-electron
 * (scripts/vscode-host/run-electron.mjs, desktop VS Code). Built by scripts/build.mjs to dist/test/suite/index.js.
 *
 * Loads every *.test.js beside it (dist/test/suite), TDD UI (suite/test/suiteSetup…), and writes a results
 * JSON to $CONTACT_LENS_TEST_RESULTS when set: { passes, failures, pending, durationMs, host, tests[] } with
 * each failure's message and stack. Resolves when every test passed; rejects otherwise (VS Code turns the
 * rejection into exit code 1).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import * as mochaModule from 'mocha';
import * as vscode from 'vscode';

interface TestRecord {
  title: string;
  fullTitle: string;
  file?: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number;
  error?: { message: string; stack?: string; expected?: unknown; actual?: unknown };
}

// mocha 12 is an ES module: required from CJS it is a namespace whose `Mocha` (and default) is the class.
type MochaCtor = typeof import('mocha');
const MochaClass: MochaCtor =
  (mochaModule as unknown as { Mocha?: MochaCtor; default?: MochaCtor }).Mocha ??
  (mochaModule as unknown as { default?: MochaCtor }).default ??
  (mochaModule as unknown as MochaCtor);

/**
 * The extension host forwards console calls to the workbench with printf placeholders unformatted and its own
 * log lines mixed in (and it pins `console.log` with a getter, so it cannot be wrapped). So the test output
 * is formatted here and logged as ONE string tagged with MARK per line; the launcher prints exactly those.
 * Tests use `say()` (helpers.ts) for their own notes.
 */
export const MARK = '\u2063CL\u2063 ';
const say = (...args: unknown[]) =>
  console.log(
    format(...args)
      .split('\n')
      .map((l) => MARK + l)
      .join('\n'),
  );

export async function run(): Promise<void> {
  (globalThis as { __contactLensSay?: typeof say }).__contactLensSay = say;
  // mocha's reporters print through Base.consoleLog(fmt, ...args)
  const base = (MochaClass as unknown as { reporters: { Base: { consoleLog: (...a: unknown[]) => void } } }).reporters.Base;
  const savedLog = base.consoleLog;
  base.consoleLog = say;
  try {
    await runSuite();
  } finally {
    base.consoleLog = savedLog;
  }
}

async function runSuite(): Promise<void> {
  const started = Date.now();
  const testsDir = __dirname;
  const ui = (process.env.CONTACT_LENS_MOCHA_UI as 'tdd' | 'bdd' | undefined) ?? 'tdd';
  const mocha = new MochaClass({
    ui,
    color: false,
    timeout: Number(process.env.CONTACT_LENS_TEST_TIMEOUT_MS ?? 60_000),
    reporter: 'spec',
    // Every test must run: .only / skip are reported by the launcher as failures of the suite.
    forbidOnly: true,
  });
  const grep = process.env.CONTACT_LENS_TEST_GREP;
  if (grep) mocha.grep(grep);

  const files = fs
    .readdirSync(testsDir)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const f of files) mocha.addFile(path.join(testsDir, f));
  say(
    `[contact-lens-tests] ${files.length} test files from ${testsDir}; vscode ${vscode.version}, appHost=${vscode.env.appHost}, remote=${vscode.env.remoteName ?? 'none'}, node ${process.versions.node}`,
  );
  if (files.length === 0) throw new Error(`no *.test.js files in ${testsDir} (did npm run build run?)`);

  await mocha.loadFilesAsync();

  const records: TestRecord[] = [];
  const fileOf = (t: Mocha.Runnable): string | undefined => (t.file ? path.basename(t.file) : undefined);
  const errorOf = (err: unknown): TestRecord['error'] => {
    const e = err as { message?: string; stack?: string; expected?: unknown; actual?: unknown };
    return { message: String(e?.message ?? err), stack: e?.stack, expected: e?.expected, actual: e?.actual };
  };

  const { failures, stats } = await new Promise<{ failures: number; stats: Mocha.Stats | undefined }>((resolve, reject) => {
    try {
      const runner = mocha.run((n) => resolve({ failures: n, stats: runner.stats }));
      runner.on('pass', (t) => records.push({ title: t.title, fullTitle: t.fullTitle(), file: fileOf(t), state: 'passed', durationMs: t.duration }));
      runner.on('fail', (t, err) =>
        records.push({ title: t.title, fullTitle: t.fullTitle(), file: fileOf(t), state: 'failed', durationMs: t.duration, error: errorOf(err) }),
      );
      runner.on('pending', (t) => records.push({ title: t.title, fullTitle: t.fullTitle(), file: fileOf(t), state: 'pending' }));
    } catch (e) {
      reject(e);
    }
  });

  const summary = {
    passes: records.filter((r) => r.state === 'passed').length,
    failures: Math.max(failures, records.filter((r) => r.state === 'failed').length),
    pending: records.filter((r) => r.state === 'pending').length,
    total: stats?.tests ?? records.length,
    durationMs: Date.now() - started,
    host: {
      vscode: vscode.version,
      appHost: vscode.env.appHost,
      remoteName: vscode.env.remoteName ?? null,
      node: process.versions.node,
      execPath: process.execPath,
    },
    files,
    tests: records,
  };
  const out = process.env.CONTACT_LENS_TEST_RESULTS;
  if (out) {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(summary, null, 2));
  }
  say(`[contact-lens-tests] ${summary.passes} passed, ${summary.failures} failed, ${summary.pending} pending in ${(summary.durationMs / 1000).toFixed(1)}s`);
  if (summary.failures > 0) throw new Error(`${summary.failures} of ${summary.total} integration tests failed`);
}
