/**
 * The inspector webview's HTML document. Pure (no `vscode` import): the extension passes
 * webview.asWebviewUri(...) strings and webview.cspSource; the webview tests pass their own origin.
 * Strict CSP: only the nonce'd bundle runs, styles come from the extension's own files (cspSource) or
 * carry the nonce, no inline handlers, no eval, no remote content. The markup holds the layout and the ids
 * of the DOM contract; webview/main.ts fills it (toolkit controls are created there via webview/toolkit.ts).
 */

export interface InspectorHtmlOptions {
  readonly scriptUri: string;
  readonly styleUri: string;
  readonly cspSource: string;
  readonly nonce: string;
  readonly title: string;
}

/** Escapes text for an HTML text node or a double-quoted attribute. */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** A random nonce for the CSP (alphanumeric, 32 chars). */
export function makeNonce(random: () => number = Math.random): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 32; i++) s += chars[Math.floor(random() * chars.length)];
  return s;
}

function chartPanel(id: string, canvasId: string, title: string, help: string, extra = '', tools = ''): string {
  return `<section class="panel" id="${id}">
        <h2 title="${esc(help)}">${esc(title)}${tools}</h2>${extra}
        <div class="chart-box"><canvas id="${canvasId}" role="img" aria-label="${esc(title)}"></canvas></div>
      </section>`;
}

export function inspectorHtml(o: InspectorHtmlOptions): string {
  if (!/^[A-Za-z0-9+/=_-]+$/.test(o.nonce)) throw new Error('nonce must be base64/alphanumeric');
  const src = esc(o.cspSource);
  const nonce = o.nonce;
  const csp =
    [`default-src 'none'`, `img-src ${src} data:`, `style-src ${src} 'nonce-${nonce}'`, `font-src ${src}`, `script-src 'nonce-${nonce}'`].join('; ') + ';';
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <!-- FAST (the toolkit's base) reads this nonce for the probe <style> it creates (focus-visible test) -->
  <meta property="csp-nonce" content="${nonce}">
  <link rel="stylesheet" href="${esc(o.styleUri)}" nonce="${nonce}">
  <title>${esc(o.title)}</title>
</head>
<body>
  <header class="session">
    <h1 id="session-title">${esc(o.title)}</h1>
    <div id="session-meta" class="muted">waiting for the extension…</div>
    <div id="progress" hidden><span id="progress-text"></span> <progress id="progress-bar" max="1"></progress></div>
  </header>
  <div id="error" role="alert" title="click to dismiss" hidden></div>
  <section id="timeline" aria-label="timeline">
    <div id="timeline-buttons" class="buttons"></div>
    <div id="timeline-track"><input id="timeline-slider" type="range" min="0" max="0" step="1" value="0" aria-label="frame index"><div id="timeline-divergence" title="first divergence of the two runs (D)" hidden></div></div>
    <span id="frame-readout" aria-live="polite">no frame yet</span>
    <div id="frame-tools" class="buttons" aria-label="export frame"></div>
  </section>
  <section id="compare-banner" aria-label="compare" aria-live="polite" hidden></section>
  <div id="frame-status" class="muted"></div>
  <div id="problem-header" aria-live="polite" hidden></div>
  <main class="layout">
    <section class="panel" id="panel-scene" aria-label="scene view"></section>
    <div class="column" id="col-side">
      ${chartPanel('panel-energy', 'energy-chart', 'Energy', 'relative (default): ΔE, ΔK, ΔU since the first frame and the energy-ledger parts summed since then, so small injections show beside a large potential energy; absolute: E, K, U and the ledger parts per frame. The marks under the chart are the findings (a number counts close ones); click one to go there', '\n        <div id="energy-values"></div>', ' <span id="energy-tools" class="panel-tools"></span>')}
      <section class="panel" id="panel-findings">
        <h2>Findings (<span id="findings-count">0</span>) <span class="muted hint">click or Enter: go to the frame and unfold</span></h2>
        <div id="findings"></div>
      </section>
    </div>
    <section class="panel" id="panel-contacts">
      <h2>Contacts <span id="contacts-count" class="muted"></span> <span class="muted hint">click a row to plot its λ, click a header to sort; units under the names</span></h2>
      <div id="contacts-scroll" class="table-scroll">
        <table id="contacts-table" class="grid"><tbody></tbody></table>
      </div>
    </section>
    <div class="column" id="col-left">
      <section class="panel" id="panel-matrix">
        <h2 title="Delassus matrix A = J M⁻¹ Jᵀ per island, signed log-magnitude (red > 0, blue < 0)">A matrix per island</h2>
        <div id="matrix-view"></div>
      </section>
      <section class="panel" id="whatif-panel">
        <h2>What if… re-solve this frame</h2>
        <div id="whatif-form" class="form"></div>
        <div id="whatif-result"></div>
      </section>
      <section class="panel" id="panel-compare" hidden>
        <h2 title="the session (run a) beside a second run (b): where they part and why (docs/compare.md)">Compare <span id="compare-title" class="muted"></span></h2>
        <div id="compare-body"></div>
        <div id="compare-frame"></div>
        <div id="compare-whatif" class="form"></div>
        <div id="compare-whatif-result"></div>
      </section>
      <section class="panel" id="panel-engines" hidden>
        <h2 title="the scenario in our engine, cannon-es, Rapier, Jolt and MuJoCo (docs/compare.md)">Engines <span id="engines-title" class="muted"></span></h2>
        <div id="engines-table" class="table-scroll"></div>
      </section>
    </div>
    <div class="column" id="col-right">
      ${chartPanel('panel-injection', 'injection-chart', 'Energy injection per frame (J)', 'joules each mechanism injected per frame (stacked bars, from the per-contact ledger and exact re-solves), cumulative injection and E − E₀ (right axis, its zero level with the left axis); the marks under the chart are the injection findings')}
      ${chartPanel('panel-lambda', 'lambda-chart', 'Contact impulses λn, ‖λt‖ (N·s)', 'selected contacts over time (solid λn, dashed ‖λt‖)')}
      ${chartPanel('panel-solver', 'solver-chart', 'Solver iterations and final residual', 'iterations (left) and final residual (right, log) per frame')}
      ${chartPanel('panel-kappa', 'kappa-chart', 'Condition number κ(A)', 'κ(A) of the worst island per frame (log)')}
      ${chartPanel('panel-convergence', 'convergence-chart', 'Convergence of this frame', 'solver residual per iteration (log)')}
    </div>
  </main>
  <script nonce="${nonce}" src="${esc(o.scriptUri)}"></script>
</body>
</html>
`;
}
