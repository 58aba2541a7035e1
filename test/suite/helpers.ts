/**
 * Shared helpers for the integration suite (runs inside the VS Code extension host; `vscode` is the real API).
 * Expected values are computed here independently of the extension (own JSON scanner, own file reads).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'contact-lens.contact-lens';

/** What the extension's activate() returns (the part the suite relies on). */
export interface ContactLensExports {
  activationTimeMs: number;
  activationCpuMs: number | null;
  testController: vscode.TestController;
}

export async function activeExtension(): Promise<vscode.Extension<ContactLensExports>> {
  const ext = vscode.extensions.getExtension<ContactLensExports>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed in this extension host`);
  if (!ext.isActive) await ext.activate();
  assert.ok(ext.isActive, `${EXTENSION_ID} did not activate`);
  return ext;
}

export function workspaceRoot(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the suite needs a workspace folder (the launcher opens a copy of examples/)');
  return folder.uri;
}

/** A file of the workspace copy of examples/. */
export const wsUri = (name: string): vscode.Uri => vscode.Uri.joinPath(workspaceRoot(), name);

/** Prints a note into the launcher's test output (see index.ts: formatted, tagged lines). */
export function say(...args: unknown[]): void {
  const f = (globalThis as { __contactLensSay?: (...a: unknown[]) => void }).__contactLensSay;
  if (f) f(...args);
  else console.log(...args);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Polls fn until it returns a value that is not undefined/false; throws a descriptive error on timeout,
 * including the last value seen (describe) or the last exception.
 */
export async function poll<T>(
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 20_000,
  describe?: () => string,
): Promise<T> {
  const t0 = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() - t0 > timeoutMs) {
      const extra = describe ? `; last seen: ${describe()}` : lastError ? `; last error: ${(lastError as Error).message ?? lastError}` : '';
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${extra}`);
    }
    await sleep(100);
  }
}

export interface ScenarioSpan {
  name: string;
  /** 0-based line of the scenario object's opening `{` and closing `}`. */
  startLine: number;
  endLine: number;
  hasExpectations: boolean;
}

/**
 * Finds the objects of the top-level "scenarios" array with a tiny JSON scanner (strings, nesting, lines),
 * independent of the extension's parser: each one's name, the lines of its braces, and whether it has a
 * non-empty "expectations" array.
 */
export function scanScenarios(text: string): ScenarioSpan[] {
  type Frame = { kind: '{' | '['; key?: string; scenario?: ScenarioSpan; expectations?: boolean };
  const stack: Frame[] = [];
  const out: ScenarioSpan[] = [];
  let line = 0;
  let key: string | undefined; // the key whose value comes next (after ':')
  let afterColon = false;
  const markItem = () => {
    // any value directly inside a scenario's "expectations" array
    if (stack.length === 4 && stack[3].expectations) stack[2].scenario!.hasExpectations = true;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      line++;
      continue;
    }
    if (/\s/.test(c)) continue;
    if (c === '"') {
      let j = i + 1,
        s = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\') {
          s += text[j + 1];
          j += 2;
        } else s += text[j++];
      }
      i = j;
      const top = stack[stack.length - 1];
      if (top?.kind === '{' && !afterColon)
        key = s; // a key
      else {
        // a value
        markItem();
        if (afterColon && top?.scenario && stack.length === 3 && key === 'name') top.scenario.name = s;
      }
      afterColon = false;
      continue;
    }
    if (c === ':') {
      afterColon = true;
      continue;
    }
    if (c === ',') {
      afterColon = false;
      key = undefined;
      continue;
    }
    if (c === '{' || c === '[') {
      markItem();
      const frame: Frame = { kind: c };
      const parentKey = afterColon ? key : undefined;
      // root { → "scenarios": [ → { scenario }
      if (c === '[' && stack.length === 1 && parentKey === 'scenarios') frame.key = 'scenarios';
      if (c === '{' && stack.length === 2 && stack[1].key === 'scenarios')
        frame.scenario = { name: '', startLine: line, endLine: line, hasExpectations: false };
      if (c === '[' && stack.length === 3 && stack[2].scenario && parentKey === 'expectations') frame.expectations = true;
      stack.push(frame);
      afterColon = false;
      key = undefined;
      continue;
    }
    if (c === '}' || c === ']') {
      const frame = stack.pop();
      if (frame?.scenario) {
        frame.scenario.endLine = line;
        out.push(frame.scenario);
      }
      afterColon = false;
      key = undefined;
      continue;
    }
    markItem(); // numbers, true/false/null
  }
  return out;
}

export const LENS_PREFIXES = ['▶ Run', '⏯ Step', '🔍 Inspect', '⚡ Check', '⇄ Diff', '⚖ Compare engines'] as const;

/** Lenses of a document (resolved), polled until there are at least `min` of them. */
export async function codeLenses(uri: vscode.Uri, min = 1, timeoutMs = 30_000): Promise<vscode.CodeLens[]> {
  let last: vscode.CodeLens[] = [];
  return poll(
    async () => {
      last = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
      return last.length >= min ? last : undefined;
    },
    `at least ${min} CodeLens in ${uri.path.split('/').pop()}`,
    timeoutMs,
    () => describeLenses(last),
  );
}

export const describeLenses = (lenses: readonly vscode.CodeLens[]) =>
  JSON.stringify(lenses.map((l) => `${l.range.start.line}: ${l.command?.title ?? '(unresolved)'}`));

/** Lens titles grouped by 0-based line. */
export function lensesByLine(lenses: readonly vscode.CodeLens[]): Map<number, string[]> {
  const m = new Map<number, string[]>();
  for (const l of lenses) {
    const list = m.get(l.range.start.line) ?? [];
    list.push(l.command?.title ?? '');
    m.set(l.range.start.line, list);
  }
  return m;
}

/** All tabs of all groups. */
export const allTabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs);

export async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}
