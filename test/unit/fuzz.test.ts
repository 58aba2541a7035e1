/**
 * Seeded mutation fuzzer for the readers (targets in test/fuzz/targets.ts): scene, problem, recording and the
 * inspector model, blocked and plain gzip with `compress`, FCLIB HDF5, format 1.1 recordings with the
 * diagnosis. Asserted per target: no uncaught input (every input is read, or refused with one FormatError
 * line naming the file and the field; invariants hold) and no input slower than FUZZ_MAX_MS.
 *
 * CONTACT_LENS_FUZZ=N runs N inputs per target (default: each target's ciInputs); CONTACT_LENS_FUZZ_SEED=S
 * changes the seed. `npm run fuzz -- N` (bench/fuzz.ts) runs many more and prints a table.
 */
import assert from 'node:assert/strict';
import { FUZZ_HANG_MS, FUZZ_MAX_MS, FUZZ_TARGETS, runTarget, type TargetFigures } from '../fuzz/targets.js';

const PER_TARGET = process.env.CONTACT_LENS_FUZZ === undefined ? undefined : Math.max(1, Math.floor(Number(process.env.CONTACT_LENS_FUZZ)) || 1);
const SEED = Math.floor(Number(process.env.CONTACT_LENS_FUZZ_SEED ?? 20261123)) || 20261123;

describe(`fuzz: seeded mutations (seed ${SEED}; CONTACT_LENS_FUZZ=N for N per target)`, function () {
  this.timeout(0);
  const figures: TargetFigures[] = [];

  after(() => {
    for (const f of figures) {
      process.stdout.write(
        `      fuzz ${f.target}: ${f.inputs} inputs, ${f.rejected} rejected with a one-line error, ${f.uncaught} uncaught, slowest ${f.slowestMs.toFixed(1)} ms of CPU time (${f.slowest}), ${f.slowestWallMs.toFixed(1)} ms of wall time at most\n`,
      );
    }
  });

  for (const t of FUZZ_TARGETS) {
    it(`${t.name}: every input is read or refused with one line naming the file and the field, none over ${FUZZ_MAX_MS} ms of CPU time nor hanging`, async () => {
      const f = await runTarget(t, PER_TARGET ?? t.ciInputs, SEED);
      figures.push(f);
      assert.equal(f.uncaught, 0, f.failures.join('\n'));
      assert.ok(f.slowestMs < FUZZ_MAX_MS, `${f.slowest}: took ${f.slowestMs.toFixed(0)} ms of CPU time (limit ${FUZZ_MAX_MS} ms)`);
      assert.ok(f.slowestWallMs < FUZZ_HANG_MS, `an input waited ${f.slowestWallMs.toFixed(0)} ms (hang limit ${FUZZ_HANG_MS} ms)`);
    });
  }
});
