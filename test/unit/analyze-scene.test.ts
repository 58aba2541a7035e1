/** What the editor gets for a scene file (computed in the worker): lens outline, problems on the field, tests. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { analyzeScene } from '../../src/extension/model/analyzeScene.js';

const ROOT = resolve(__dirname, '..', '..');

describe('scene analysis for the editor', () => {
  it('outline and tests of a valid file: every named scenario, tests = those with expectations', () => {
    const file = resolve(ROOT, 'examples', 'sphere-drop.scene.json');
    const text = readFileSync(file, 'utf8');
    const a = analyzeScene(file, text);
    const names = JSON.parse(text).scenarios.map((s: { name: string }) => s.name);
    assert.deepEqual(
      a.outline.map((o) => o.name),
      names,
    );
    assert.deepEqual(
      a.tests.map((t) => t.name),
      JSON.parse(text)
        .scenarios.filter((s: { expectations?: unknown[] }) => s.expectations?.length)
        .map((s: { name: string }) => s.name),
    );
    const lines = text.split('\n');
    for (const o of a.outline) assert.match(lines[o.range.line - 1].slice(o.range.column - 1), /^\{/, `${o.name} starts at its "{"`);
    assert.equal(a.problems.length, 0);
  });

  it('a bad value is one error on that value’s line, naming the field; the outline still works', () => {
    const text =
      '{\n  "scenarios": [\n    {\n      "name": "x", "frames": 10,\n      "bodies": [\n        { "name": "b", "shape": { "sphere": { "radius": 0.1 } },\n          "mass": -1 }\n      ]\n    }\n  ]\n}\n';
    const a = analyzeScene('bad.scene.json', text);
    assert.equal(a.problems.length, 1);
    assert.equal(a.problems[0].severity, 'error');
    assert.equal(a.problems[0].range.line, 7);
    assert.match(a.problems[0].message, /mass/);
    assert.deepEqual(
      a.outline.map((o) => o.name),
      ['x'],
    );
  });

  it('a half-typed file keeps its lenses; the fault file warns where faultInjection is used', () => {
    const half = '{ "scenarios": [ { "name": "a", "frames": 3 }, { "name": "b", "fr';
    assert.deepEqual(
      analyzeScene('h.scene.json', half).outline.map((o) => o.name),
      ['a', 'b'],
    );
    const file = resolve(ROOT, 'examples', 'fault-restitution-target.scene.json');
    const a = analyzeScene(file, readFileSync(file, 'utf8'));
    assert.ok(
      a.problems.some((p) => p.severity === 'warning' && /faultInjection/.test(p.message)),
      JSON.stringify(a.problems),
    );
  });
});
