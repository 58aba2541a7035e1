/**
 * Test harness for the inspector webview: real headless Chromium (playwright-core) showing the page that
 * inspectorHtml() produces, served from a fake origin with the built bundle (dist/webview). A stub
 * acquireVsCodeApi forwards the webview's postMessage to Node (page.exposeFunction); FakeHost answers like
 * the extension does — from a real InspectorModel — with window.postMessage(msg, '*').
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inspectorHtml } from '../../src/extension/webviewHtml.js';
import { InspectorModel } from '../../src/extension/model/inspectorModel.js';
import type { CompareModel } from '../../src/extension/model/compareModel.js';
import { parseSceneFile } from '../../src/format/scene.js';
import { PROTOCOL_VERSION } from '../../src/protocol/inspector.js';
import type { FrameView, HostMessage, SessionSource, WebviewMessage, WebviewState } from '../../src/protocol/inspector.js';
import { validateWebviewMessage } from '../../src/protocol/validate.js';
import type { SceneInfo } from '../../src/protocol/scene.js';

export const ROOT = resolve(__dirname, '../..');
/** Debian's Chromium, or the executable $CHROMIUM_BIN names (scripts/ensure-chromium.sh installs Debian's). */
export const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/lib/chromium/chromium';
export const BUNDLE = join(ROOT, 'dist/webview/main.js');
export const ORIGIN = 'https://inspector.test';
export const SCENE_FILE = join(ROOT, 'examples/fault-restitution-target.scene.json');
export const RECORDING_FILE = join(ROOT, 'examples/foreign-engine.rec.jsonl');

/** Launches Debian's Chromium; a missing browser or bundle FAILS the suite (never skips it). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: run the tests with npm test or npm run test:webview (as root they install Debian chromium), or set CHROMIUM_BIN`,
    );
  }
  if (!existsSync(BUNDLE) || !existsSync(join(ROOT, 'dist/webview/style.css'))) {
    throw new Error(`${BUNDLE} (or style.css) is missing: run \`npm run build\` first`);
  }
  // Chromium writes crash reports and dconf under $HOME even headless: give it a private one.
  const home = mkdtempSync(join(tmpdir(), 'cl-webview-home-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') },
    // software WebGL for the scene view: ANGLE on SwiftShader (Chromium wants the "unsafe" opt-in for it)
    args: [
      '--no-sandbox',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // the private home goes with the browser
  browser.on('disconnected', () => rmSync(home, { recursive: true, force: true }));
  return browser;
}

/** A few --vscode-* variables of VS Code's Dark Modern and Light Modern themes (what VS Code injects). */
export const THEMES = {
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      '--vscode-font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': '"Droid Sans Mono", monospace',
      '--vscode-editor-background': '#1f1f1f',
      '--vscode-foreground': '#cccccc',
      '--vscode-descriptionForeground': '#9d9d9d',
      '--vscode-errorForeground': '#f85149',
      '--vscode-focusBorder': '#0078d4',
      '--vscode-panel-border': '#2b2b2b',
      '--vscode-sideBar-background': '#181818',
      '--vscode-editorWidget-background': '#202020',
      '--vscode-editorWidget-border': '#454545',
      '--vscode-list-hoverBackground': '#2a2d2e',
      '--vscode-list-activeSelectionBackground': '#04395e',
      '--vscode-list-activeSelectionForeground': '#ffffff',
      '--vscode-list-inactiveSelectionBackground': '#37373d',
      '--vscode-inputValidation-errorBackground': '#5a1d1d',
      '--vscode-inputValidation-errorBorder': '#be1100',
      '--vscode-editorWarning-foreground': '#cca700',
      '--vscode-editorCursor-foreground': '#aeafad',
      '--vscode-charts-red': '#f14c4c',
      '--vscode-charts-blue': '#3794ff',
      '--vscode-charts-green': '#89d185',
      '--vscode-charts-yellow': '#cca700',
      '--vscode-charts-orange': '#d18616',
      '--vscode-charts-purple': '#b180d7',
      '--vscode-input-background': '#313131',
      '--vscode-input-foreground': '#cccccc',
      '--vscode-input-placeholderForeground': '#989898',
      '--vscode-input-border': '#3c3c3c',
      '--vscode-dropdown-background': '#313131',
      '--vscode-dropdown-foreground': '#cccccc',
      '--vscode-dropdown-border': '#3c3c3c',
      '--vscode-checkbox-background': '#313131',
      '--vscode-checkbox-foreground': '#cccccc',
      '--vscode-checkbox-border': '#3c3c3c',
      '--vscode-button-background': '#0078d4',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-secondaryBackground': '#313131',
      '--vscode-button-secondaryForeground': '#cccccc',
    },
  },
  light: {
    bodyClass: 'vscode-light',
    vars: {
      '--vscode-font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': '"Droid Sans Mono", monospace',
      '--vscode-editor-background': '#ffffff',
      '--vscode-foreground': '#3b3b3b',
      '--vscode-descriptionForeground': '#717171',
      '--vscode-errorForeground': '#e51400',
      '--vscode-focusBorder': '#005fb8',
      '--vscode-panel-border': '#e5e5e5',
      '--vscode-sideBar-background': '#f8f8f8',
      '--vscode-editorWidget-background': '#f8f8f8',
      '--vscode-editorWidget-border': '#c8c8c8',
      '--vscode-list-hoverBackground': '#f2f2f2',
      '--vscode-list-activeSelectionBackground': '#e8e8e8',
      '--vscode-list-activeSelectionForeground': '#000000',
      '--vscode-list-inactiveSelectionBackground': '#e4e6f1',
      '--vscode-inputValidation-errorBackground': '#f2dede',
      '--vscode-inputValidation-errorBorder': '#be1100',
      '--vscode-editorWarning-foreground': '#bf8803',
      '--vscode-editorCursor-foreground': '#000000',
      '--vscode-charts-red': '#e51400',
      '--vscode-charts-blue': '#1a85ff',
      '--vscode-charts-green': '#388a34',
      '--vscode-charts-yellow': '#bf8803',
      '--vscode-charts-orange': '#d18616',
      '--vscode-charts-purple': '#652d90',
      '--vscode-input-background': '#ffffff',
      '--vscode-input-foreground': '#3b3b3b',
      '--vscode-input-placeholderForeground': '#767676',
      '--vscode-input-border': '#cecece',
      '--vscode-dropdown-background': '#ffffff',
      '--vscode-dropdown-foreground': '#3b3b3b',
      '--vscode-dropdown-border': '#cecece',
      '--vscode-checkbox-background': '#f8f8f8',
      '--vscode-checkbox-foreground': '#3b3b3b',
      '--vscode-checkbox-border': '#cecece',
      '--vscode-button-background': '#005fb8',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-secondaryBackground': '#e5e5e5',
      '--vscode-button-secondaryForeground': '#3b3b3b',
    },
  },
  hc: {
    // VS Code's "Dark High Contrast": black background, white text, contrast borders everywhere
    bodyClass: 'vscode-high-contrast',
    vars: {
      '--vscode-font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': '"Droid Sans Mono", monospace',
      '--vscode-editor-background': '#000000',
      '--vscode-foreground': '#ffffff',
      '--vscode-descriptionForeground': '#ffffff',
      '--vscode-errorForeground': '#f48771',
      '--vscode-focusBorder': '#f38518',
      '--vscode-panel-border': '#6fc3df',
      '--vscode-contrastBorder': '#6fc3df',
      '--vscode-sideBar-background': '#000000',
      '--vscode-editorWidget-background': '#0c141f',
      '--vscode-editorWidget-border': '#6fc3df',
      '--vscode-list-hoverBackground': '#000000',
      '--vscode-list-activeSelectionBackground': '#000000',
      '--vscode-list-activeSelectionForeground': '#ffffff',
      '--vscode-list-inactiveSelectionBackground': '#000000',
      '--vscode-inputValidation-errorBackground': '#000000',
      '--vscode-inputValidation-errorBorder': '#f48771',
      '--vscode-editorWarning-foreground': '#ffd700',
      '--vscode-editorCursor-foreground': '#ffffff',
      '--vscode-charts-red': '#f48771',
      '--vscode-charts-blue': '#3794ff',
      '--vscode-charts-green': '#89d185',
      '--vscode-charts-yellow': '#ffd700',
      '--vscode-charts-orange': '#f38518',
      '--vscode-charts-purple': '#b180d7',
      '--vscode-input-background': '#000000',
      '--vscode-input-foreground': '#ffffff',
      '--vscode-input-placeholderForeground': '#ffffffb3',
      '--vscode-input-border': '#6fc3df',
      '--vscode-dropdown-background': '#000000',
      '--vscode-dropdown-foreground': '#ffffff',
      '--vscode-dropdown-border': '#6fc3df',
      '--vscode-checkbox-background': '#000000',
      '--vscode-checkbox-foreground': '#ffffff',
      '--vscode-checkbox-border': '#6fc3df',
      '--vscode-button-background': '#000000',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-border': '#6fc3df',
      '--vscode-button-secondaryBackground': '#000000',
      '--vscode-button-secondaryForeground': '#ffffff',
    },
  },
} as const;
export type ThemeName = keyof typeof THEMES;

/** The page-side stub: theme variables, acquireVsCodeApi, CSP violation reporting (runs before any page script). */
function initScript(theme: ThemeName, state: WebviewState | undefined): string {
  const t = THEMES[theme];
  return `(() => {
    const vars = ${JSON.stringify(t.vars)};
    const apply = () => { const r = document.documentElement; if (!r) return false; for (const k in vars) r.style.setProperty(k, vars[k]); return true; };
    if (!apply()) { const mo = new MutationObserver(() => { if (apply()) mo.disconnect(); }); mo.observe(document, { childList: true }); }
    document.addEventListener('DOMContentLoaded', () => document.body.classList.add(${JSON.stringify(t.bodyClass)}));
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolation(e.violatedDirective + ' ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber + ':' + e.columnNumber + ' sample=' + e.sample));
    let state = ${JSON.stringify(state ?? null)};
    let acquired = false;
    window.acquireVsCodeApi = () => {
      if (acquired) throw new Error('acquireVsCodeApi called twice');
      acquired = true;
      return { postMessage: (m) => { window.__hostReceive(m); }, getState: () => state, setState: (s) => { state = s; window.__savedState = s; } };
    };
  })();`;
}

export interface OpenOptions {
  readonly theme?: ThemeName;
  readonly index?: number;
  readonly state?: WebviewState;
  /** Synthetic frame views instead of the model's (performance / virtualisation tests). */
  readonly frameFor?: (index: number) => FrameView;
  readonly viewport?: { width: number; height: number };
  /** Bodies for the scene view instead of the model's (synthetic frames). */
  readonly scene?: SceneInfo;
}

export interface Received {
  readonly at: number;
  readonly message: WebviewMessage;
}

/** Records what the page logs and sends (into `host`), serves the inspector page, its bundle and styles, and loads it. */
async function servePage(
  page: Page,
  host: { console: string[]; pageErrors: string[]; cspViolations: string[]; receive(m: unknown): void },
  title: string,
  o: OpenOptions,
): Promise<void> {
  page.on('console', (m) => host.console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => host.pageErrors.push(String(e)));
  await page.exposeFunction('__cspViolation', (text: string) => {
    host.cspViolations.push(text);
  });
  await page.exposeFunction('__hostReceive', (m: unknown) => {
    host.receive(m);
  });
  await page.addInitScript({ content: initScript(o.theme ?? 'dark', o.state) });
  const files: Record<string, [string, string | Buffer]> = {
    '/index.html': [
      'text/html',
      inspectorHtml({
        scriptUri: `${ORIGIN}/main.js`,
        styleUri: `${ORIGIN}/style.css`,
        cspSource: ORIGIN,
        nonce: 'T3stN0nce4Insp3ctor',
        title,
      }),
    ],
    '/main.js': ['text/javascript', readFileSync(BUNDLE)],
    '/main.js.map': ['application/json', readFileSync(`${BUNDLE}.map`)],
    '/style.css': ['text/css', readFileSync(join(ROOT, 'dist/webview/style.css'))],
  };
  await page.route(`${ORIGIN}/**`, (route) => {
    const f = files[new URL(route.request().url()).pathname];
    return f ? route.fulfill({ status: 200, contentType: f[0], body: f[1] }) : route.fulfill({ status: 404, body: 'not found' });
  });
  await page.goto(`${ORIGIN}/index.html`);
}

/** Sends a host message to the page the way VS Code does (a window 'message' event). */
async function deliverTo(page: Page, msg: unknown): Promise<void> {
  // Sent as JSON text (playwright's argument serializer is slow for big arrays) with each typed array
  // (the heat map's Uint8Array) as base64, rebuilt in the page before postMessage: the page receives
  // typed arrays, as VS Code (engines ≥ 1.57) delivers them.
  const json = JSON.stringify(msg, (_k, x: unknown) =>
    x instanceof Uint8Array || x instanceof Float64Array
      ? { $typed: x instanceof Uint8Array ? 'Uint8Array' : 'Float64Array', base64: Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('base64') }
      : x,
  );
  // (the reviver stays an anonymous inline arrow: tsx would wrap a named one in a __name() helper that
  // does not exist in the page)
  await page.evaluate((text) => {
    (globalThis as any).postMessage(
      JSON.parse(text, (_k: string, x: any): unknown => {
        if (x === null || typeof x !== 'object' || typeof x.$typed !== 'string') return x;
        const bin = atob(x.base64),
          bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        return x.$typed === 'Uint8Array' ? bytes : new Float64Array(bytes.buffer);
      }),
      '*',
    );
  }, json);
}

export class FakeHost {
  readonly received: Received[] = [];
  readonly console: string[] = [];
  readonly cspViolations: string[] = [];
  readonly pageErrors: string[] = [];
  readonly invalidFromWebview: string[] = [];
  /** While true, seeks are queued in `heldSeeks` instead of answered. */
  holdSeeks = false;
  readonly heldSeeks: Extract<WebviewMessage, { type: 'seek' }>[] = [];
  frameFor: ((index: number) => FrameView) | undefined;
  scene: SceneInfo | undefined;
  /** Compare mode as the worker answers it (frames carry run b, crossWhatIf is answered). */
  compare: CompareModel | undefined;

  private constructor(
    readonly page: Page,
    readonly model: InspectorModel,
    readonly source: SessionSource,
    private readonly index: number,
  ) {}

  static async open(browser: Browser, model: InspectorModel, source: SessionSource, o: OpenOptions = {}): Promise<FakeHost> {
    const page = await browser.newPage({ viewport: o.viewport ?? { width: 1400, height: 1000 } });
    const host = new FakeHost(page, model, source, o.index ?? 0);
    host.frameFor = o.frameFor;
    host.scene = o.scene;
    await servePage(page, host, model.info.title, o);
    await host.waitForFrameUpdates(1);
    return host;
  }

  receive(raw: unknown): void {
    let m: WebviewMessage;
    try {
      m = validateWebviewMessage(raw);
    } catch (err) {
      this.invalidFromWebview.push(String(err));
      return;
    }
    this.received.push({ at: Date.now(), message: m });
    void this.answer(m).catch((err) => {
      this.pageErrors.push(`host answer failed: ${String(err)}`);
    });
  }

  private async answer(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        return this.deliver(this.initMessage());
      case 'seek':
        if (this.holdSeeks) {
          this.heldSeeks.push(m);
          return;
        }
        return this.deliver({ type: 'frame', requestId: m.requestId, view: this.frame(m.index) });
      case 'series':
        return this.deliver({ type: 'series', requestId: m.requestId, series: this.model.series(m.keys) });
      case 'whatIf':
        return this.deliver({ type: 'whatIf', requestId: m.requestId, result: this.model.whatIf(m.index, m.options) });
      case 'crossWhatIf':
        if (this.compare) return this.deliver({ type: 'crossWhatIf', requestId: m.requestId, result: this.compare.crossWhatIf(m.index, m.direction) });
        return;
      default:
        return;
    }
  }

  initMessage(): HostMessage {
    const { model } = this;
    return {
      type: 'init',
      version: PROTOCOL_VERSION,
      source: this.source,
      info: model.info,
      timeline: model.timeline,
      findings: model.findings,
      settings: { playbackFps: 30 },
      index: this.index,
      scene: this.scene ?? model.scene,
    };
  }

  frame(index: number): FrameView {
    const v = this.frameFor ? this.frameFor(index) : this.model.frameView(index);
    return this.compare ? { ...v, compare: this.compare.frameCompare(index) } : v;
  }

  /** Sends a host message the way VS Code does (a window 'message' event). */
  deliver(msg: unknown): Promise<void> {
    return deliverTo(this.page, msg);
  }

  messages<T extends WebviewMessage['type']>(type: T): Extract<WebviewMessage, { type: T }>[] {
    return this.received.map((r) => r.message).filter((m): m is Extract<WebviewMessage, { type: T }> => m.type === type);
  }

  lastSeek(): Extract<WebviewMessage, { type: 'seek' }> | undefined {
    return this.messages('seek').at(-1);
  }

  async stats(): Promise<{
    lastFrameUpdateMs: number;
    maxFrameUpdateMs: number;
    frameUpdates: number;
    staleFrames: number;
    invalidMessages: number;
    lastFrameParts: Record<string, number>;
  }> {
    return this.page.evaluate(() => ({ ...(globalThis as any).__inspectorStats }));
  }

  async waitForFrameUpdates(n: number): Promise<void> {
    try {
      await this.page.waitForFunction((k) => ((globalThis as any).__inspectorStats?.frameUpdates ?? 0) >= k, n, { timeout: 20000 });
    } catch (err) {
      // say why: a failed host answer or a page error is the usual cause of a frame that never comes
      throw new Error(`${String(err)}\npage errors: ${this.pageErrors.join(' | ') || 'none'}`);
    }
  }

  /** Waits until the webview shows session index i (its frame view arrived and was rendered). */
  async waitForIndex(i: number): Promise<void> {
    await this.page.waitForFunction(
      ([idx, text]) => {
        const d = (globalThis as any).document;
        // the readout changes on the seek; lastIndex when the frame view has been rendered
        return (
          d.getElementById('timeline-slider').value === String(idx) &&
          d.getElementById('frame-readout').textContent === text &&
          (globalThis as any).__inspectorStats?.lastIndex === idx
        );
      },
      [i, this.readoutAt(i)] as const,
      { timeout: 20000 },
    );
  }

  readoutAt(i: number): string {
    const t = this.model.timeline;
    return `frame ${t.frame[i]} / ${this.model.info.frameCount} · t = ${t.time[i].toFixed(4)} s`;
  }

  async text(selector: string): Promise<string> {
    return (await this.page.textContent(selector)) ?? '';
  }

  /** Number of drawn (non-transparent) pixels of a canvas, read back with getImageData. */
  async drawnPixels(selector: string): Promise<number> {
    return this.page.$eval(selector, (c: any) => {
      const ctx = c.getContext('2d');
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    });
  }

  /** The scene view's canvas pixel [r, g, b] at page (CSS pixel) coordinates, read back from the WebGL canvas. */
  async scenePixel(x: number, y: number): Promise<[number, number, number]> {
    return this.page.evaluate(
      ([px, py]) => {
        const g = globalThis as any;
        const c = g.document.getElementById('scene-canvas');
        const r = c.getBoundingClientRect();
        const cx = Math.floor(((px - r.left - g.scrollX) * c.width) / r.width),
          cy = Math.floor(((py - r.top - g.scrollY) * c.height) / r.height);
        const o = g.document.createElement('canvas');
        o.width = 1;
        o.height = 1;
        const ctx = o.getContext('2d');
        ctx.imageSmoothingEnabled = false;
        ctx.drawImage(c, cx, cy, 1, 1, 0, 0, 1, 1);
        const d = ctx.getImageData(0, 0, 1, 1).data;
        return [d[0], d[1], d[2]] as [number, number, number];
      },
      [x, y] as const,
    );
  }

  /** Page coordinates of a world point in the scene view's current camera. */
  async project(p: readonly [number, number, number]): Promise<{ x: number; y: number; visible: boolean }> {
    return this.page.evaluate((q) => (globalThis as any).__sceneView.project(q), p as [number, number, number]);
  }

  /** Console errors/warnings that are CSP reports plus securitypolicyviolation events. */
  cspProblems(): string[] {
    return [...this.cspViolations, ...this.console.filter((c) => /Content Security Policy|Refused to/i.test(c))];
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}

let sceneModel: InspectorModel | undefined;
/** The first scenario of examples/fault-restitution-target.scene.json (simulated once per process). */
export function sceneFixture(): { model: InspectorModel; source: SessionSource } {
  if (!sceneModel) {
    const scene = parseSceneFile(readFileSync(SCENE_FILE, 'utf8'), SCENE_FILE);
    sceneModel = InspectorModel.fromScenario(scene.scenarios[0].desc, SCENE_FILE);
  }
  return { model: sceneModel, source: { kind: 'scenario', file: SCENE_FILE, scenario: sceneModel.info.title } };
}

export async function recordingFixture(): Promise<{ model: InspectorModel; source: SessionSource }> {
  const model = await InspectorModel.fromRecording(RECORDING_FILE);
  return { model, source: { kind: 'recording', file: RECORDING_FILE } };
}

/**
 * The extension's side of a problem-file panel (src/extension/problemInspector.ts): answers every `ready`
 * with one message — the problem view the worker builds (src/extension/model/problemView.ts), or the
 * one-line error of a file that could not be opened.
 */
export class ProblemHost {
  readonly received: WebviewMessage[] = [];
  readonly console: string[] = [];
  readonly cspViolations: string[] = [];
  readonly pageErrors: string[] = [];

  private constructor(
    readonly page: Page,
    readonly message: HostMessage,
  ) {}

  static async open(browser: Browser, message: HostMessage, o: OpenOptions = {}): Promise<ProblemHost> {
    const page = await browser.newPage({ viewport: o.viewport ?? { width: 1400, height: 1000 } });
    const host = new ProblemHost(page, message);
    await servePage(page, host, 'problem', o);
    await page
      .waitForFunction(() => ((globalThis as any).__inspectorStats?.frameUpdates ?? 0) >= 1, undefined, { timeout: 20000 })
      .catch((err) => {
        throw new Error(`${String(err)}\npage errors: ${host.pageErrors.join(' | ') || 'none'}`);
      });
    return host;
  }

  receive(raw: unknown): void {
    const m = validateWebviewMessage(raw);
    this.received.push(m);
    if (m.type === 'ready') void this.deliver(this.message);
  }

  /** As FakeHost.deliver. */
  deliver(msg: unknown): Promise<void> {
    return deliverTo(this.page, msg);
  }

  async text(selector: string): Promise<string> {
    return (await this.page.textContent(selector)) ?? '';
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}
