/** `contact-lens check <scene.json> [--json]`: runs every scenario and checks its expectations. */
import { safePath } from '../format/messages.js';
import { parseSceneFile } from '../format/scene.js';
import { blowUpMessage, runScenario } from '../session/runScenario.js';
import { checkAll } from '../session/expectations.js';
import { parseArgs, UsageError } from './args.js';
import { readInputText, type Output } from './output.js';
import { requireKind } from './fileKind.js';
import type { CommandHelp } from './help.js';
import { formatCount, formatNumber } from '../engine/index.js';

export const CHECK_HELP: CommandHelp = {
  command: 'check',
  synopsis: 'check <scene.json> [--json]',
  summary: 'runs every scenario of a scene file and checks its expectations',
  description: [
    'Runs every scenario of a scene file (docs/scene-format.md) and checks its expectations: one line per',
    'scenario and per expectation. Exit 0 only if every expectation holds, 1 otherwise.',
  ],
  options: [['--json', 'one JSON object per scenario instead of the lines']],
  example: 'check examples/box-stack-10.scene.json',
};

export function runCheck(argv: readonly string[], io: Output): number {
  const { positionals, options } = parseArgs(argv, [], ['json']);
  if (positionals.length !== 1) throw new UsageError(`expected one scene file\nusage: contact-lens ${CHECK_HELP.synopsis}`);
  const file = positionals[0];
  requireKind(file, 'check', ['scene']);
  const { scenarios, warnings } = parseSceneFile(readInputText(file), file);
  if (!options.get('json')) for (const w of warnings) io.err(`warning: ${w.message}`);
  let allOk = true;
  for (const s of scenarios) {
    const t0 = performance.now();
    const run = runScenario(s.desc);
    const ms = performance.now() - t0;
    const results = checkAll(s.expectations, run);
    // a run that blew up fails, whatever its expectations say (they may hold vacuously on non-finite data)
    const ok = results.every((r) => r.ok) && run.blowUp === null;
    allOk &&= ok;
    if (options.get('json')) {
      io.out(
        JSON.stringify({
          file,
          scenario: s.desc.name,
          line: s.range.line,
          ok,
          frames: run.frames.length,
          timeMs: ms,
          ...(run.blowUp ? { blowUp: { frame: run.blowUp.frame, message: blowUpMessage(run.blowUp) } } : {}),
          expectations: results.map((r) => ({ kind: r.expectation.kind, ok: r.ok, message: r.message, ...(r.frame !== undefined ? { frame: r.frame } : {}) })),
        }),
      );
    } else {
      io.out(`${ok ? '✓' : '✗'} ${s.desc.name} (${safePath(file)}:${s.range.line}, ${formatCount(run.frames.length, 'frame')}, ${formatNumber(ms / 1000)} s)`);
      if (run.blowUp) io.out(`    ✗ blow-up: ${blowUpMessage(run.blowUp)}`);
      if (results.length === 0) io.out('    (no expectations)');
      for (const r of results) io.out(`    ${r.ok ? '✓' : '✗'} ${r.expectation.kind}: ${r.message}`);
    }
  }
  return allOk ? 0 : 1;
}
