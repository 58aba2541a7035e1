/** inspectorHtml(): a pure function producing the document with a strict nonce CSP (no browser needed). */
import assert from 'node:assert/strict';
import { inspectorHtml, makeNonce } from '../../src/extension/webviewHtml.js';

describe('inspectorHtml', () => {
  const o = {
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/main.js',
    styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/style.css',
    cspSource: 'https://*.vscode-cdn.net',
    nonce: 'abcDEF123',
    title: 'box <stack> & "friends"',
  };
  const html = inspectorHtml(o);

  it('sets the strict CSP with the nonce and nothing unsafe or remote', () => {
    const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1];
    assert.equal(
      csp,
      `default-src 'none'; img-src https://*.vscode-cdn.net data:; style-src https://*.vscode-cdn.net 'nonce-abcDEF123'; font-src https://*.vscode-cdn.net; script-src 'nonce-abcDEF123';`,
    );
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
    assert.doesNotMatch(html, /\sstyle="/, 'no inline style attributes');
    assert.doesNotMatch(html, /\son[a-z]+="/, 'no inline event handlers');
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    assert.deepEqual(scripts, [` nonce="abcDEF123" src="${o.scriptUri}"`]);
    assert.ok(html.includes(`<link rel="stylesheet" href="${o.styleUri}" nonce="abcDEF123">`));
  });

  it('escapes the title and contains the DOM contract ids', () => {
    assert.ok(html.includes('<title>box &lt;stack&gt; &amp; &quot;friends&quot;</title>'));
    for (const id of [
      'frame-readout',
      'timeline-slider',
      'contacts-table',
      'energy-chart',
      'lambda-chart',
      'solver-chart',
      'kappa-chart',
      'convergence-chart',
      'energy-values',
      'findings',
      'findings-count',
      'matrix-view',
      'whatif-panel',
      'whatif-result',
      'error',
    ]) {
      assert.ok(html.includes(`id="${id}"`), `#${id} missing`);
    }
    assert.match(html, /<input id="timeline-slider" type="range"/);
  });

  it('rejects a nonce that could break out of the attribute; makeNonce gives 32 alphanumerics', () => {
    assert.throws(() => inspectorHtml({ ...o, nonce: `x" onload="alert(1)` }));
    assert.match(makeNonce(), /^[A-Za-z0-9]{32}$/);
  });
});
