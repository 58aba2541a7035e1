/** `contact-lens check <scene.json> [--json]`: runs every scenario and checks its expectations. */
import { safePath } from '../format/messages.js';
import { parseSceneFile } from '../format/scene.js';
import { blowUpMessage, runScenario } from '../session/runScenario.js';
import { checkAll } from '../session/expectations.js';
import { parseArgs, UsageError } from './args.js';
import { readText, type Output } from './solveCommand.js';

export const CHECK_USAGE = 'contact-lens check <scene.json> [--json]';

export function runCheck(argv: readonly string[], io: Output): number {
  const { positionals, options } = parseArgs(argv, [], ['json']);
  if (positionals.length !== 1) throw new UsageError(`expected one scenario file\nusage: ${CHECK_USAGE}`);
  const file = positionals[0];
  const { scenarios, warnings } = parseSceneFile(readText(file), file);
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
      io.out(`${ok ? '✓' : '✗'} ${s.desc.name} (${safePath(file)}:${s.range.line}, ${run.frames.length} frames, ${(ms / 1000).toFixed(2)} s)`);
      if (run.blowUp) io.out(`    ✗ blow-up: ${blowUpMessage(run.blowUp)}`);
      if (results.length === 0) io.out('    (no expectations)');
      for (const r of results) io.out(`    ${r.ok ? '✓' : '✗'} ${r.expectation.kind}: ${r.message}`);
    }
  }
  return allOk ? 0 : 1;
}
