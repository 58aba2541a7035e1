/**
 * Results of scenario checks, by scene file and scenario name: the CodeLens titles, the Problems panel
 * and the Test Explorer read them. An edit of the file drops its outcomes (they describe the old text).
 */
import * as vscode from 'vscode';
import type { ScenarioCheck } from './worker/workerProtocol.js';
import { toRange } from './ranges.js';

export type Outcome =
  | { readonly state: 'running' }
  | { readonly state: 'done'; readonly check: ScenarioCheck }
  | { readonly state: 'error'; readonly message: string };

const signed = (x: number, digits = 3): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toPrecision(digits)}`;

/** The one-line summary shown in the lens, e.g. "⚠ +0.41 J at frame 112, contact 3: restitution overshoot". */
export function outcomeTitle(o: Outcome): string {
  if (o.state === 'running') return '$(sync~spin) Checking…';
  if (o.state === 'error') return `⚠ check failed: ${o.message}`;
  const c = o.check;
  const failed = c.expectations.filter((x) => !x.ok);
  const errors = failingFindings(c);
  if (errors.length > 0) {
    const worst = errors.reduce((a, b) => (b.joules > a.joules ? b : a));
    const where = worst.contacts.length ? `, contact ${worst.contacts.slice(0, 3).join(', ')}${worst.contacts.length > 3 ? '…' : ''}` : '';
    const more = c.findings.length > 1 ? ` (+${c.findings.length - 1} more)` : '';
    const what = worst.kind === 'injection' || worst.kind === undefined ? `${signed(worst.joules, 2)} J at frame ${worst.frame}` : `frame ${worst.frame}`;
    return `⚠ ${what}${where}: ${worst.mechanism.replace(/-/g, ' ')}${more}`;
  }
  if (failed.length > 0) return `⚠ ${failed[0].kind}: ${failed[0].message}${failed.length > 1 ? ` (+${failed.length - 1} more)` : ''}`;
  const energy = c.expectations.find((x) => x.kind === 'energyNonIncreasing');
  if (energy) return `✓ ${energy.message}`;
  return `✓ ${c.expectations.length} expectation${c.expectations.length === 1 ? '' : 's'} hold, no findings (ΔE ${signed(c.energyChange)} J)`;
}

/** Findings that fail a check: errors (warnings such as a Baumgarte push-out or the convex model's lift are shown, not failed). */
export function failingFindings(c: ScenarioCheck): ScenarioCheck['findings'] {
  return c.findings.filter((f) => (f.severity ?? 'error') === 'error');
}

export function outcomePassed(c: ScenarioCheck): boolean {
  return failingFindings(c).length === 0 && c.expectations.every((x) => x.ok);
}

const SEVERITY: Record<'error' | 'warning' | 'info', vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Warning,
  warning: vscode.DiagnosticSeverity.Information,
  info: vscode.DiagnosticSeverity.Hint,
};

export class CheckOutcomes implements vscode.Disposable {
  private readonly byFile = new Map<string, Map<string, Outcome>>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  readonly diagnostics = vscode.languages.createDiagnosticCollection('contact-lens');

  get(uri: vscode.Uri, scenario: string): Outcome | undefined {
    return this.byFile.get(uri.toString())?.get(scenario);
  }

  set(uri: vscode.Uri, scenario: string, o: Outcome): void {
    const key = uri.toString();
    let m = this.byFile.get(key);
    if (!m) this.byFile.set(key, (m = new Map()));
    m.set(scenario, o);
    this.publish(uri);
    this.changed.fire(uri);
  }

  /** The file changed: its outcomes no longer describe its text. */
  clear(uri: vscode.Uri): void {
    if (!this.byFile.delete(uri.toString())) return;
    this.publish(uri);
    this.changed.fire(uri);
  }

  /** Failed expectations and findings of every checked scenario of the file as diagnostics. */
  private publish(uri: vscode.Uri): void {
    const out: vscode.Diagnostic[] = [];
    for (const o of this.byFile.get(uri.toString())?.values() ?? []) {
      if (o.state !== 'done') continue;
      const c = o.check;
      for (const x of c.expectations) {
        if (x.ok) continue;
        const d = new vscode.Diagnostic(
          toRange(c.expectationRanges[x.index] ?? c.range),
          `${c.scenario}: expectation ${x.kind} failed: ${x.message}`,
          vscode.DiagnosticSeverity.Error,
        );
        d.source = 'contact-lens check';
        out.push(d);
      }
      for (const f of c.findings) {
        const head = new vscode.Range(toRange(c.range).start, toRange(c.range).start.translate(0, 1));
        const d = new vscode.Diagnostic(
          head,
          `${c.scenario}: ${f.mechanism}: ${f.kind === 'injection' || f.kind === undefined ? `${signed(f.joules)} J ` : ''}at frame ${f.frame}${f.contacts.length ? `, contact ${f.contacts.join(', ')}` : ''} — ${f.headline ?? f.explanation}`,
          SEVERITY[f.severity ?? 'error'],
        );
        d.source = 'contact-lens diagnose';
        d.code = f.mechanism;
        out.push(d);
      }
    }
    const parse = this.parseDiagnostics.get(uri.toString()) ?? [];
    this.diagnostics.set(uri, [...parse, ...out]);
  }

  private readonly parseDiagnostics = new Map<string, vscode.Diagnostic[]>();
  /** Parse/schema errors of the file (kept apart from check results; both are shown). */
  setParseDiagnostics(uri: vscode.Uri, d: vscode.Diagnostic[]): void {
    this.parseDiagnostics.set(uri.toString(), d);
    this.publish(uri);
  }

  dispose(): void {
    this.diagnostics.dispose();
    this.changed.dispose();
  }
}
