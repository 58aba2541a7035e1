// Mocha's spec reporter plus one plain closing line "N passed, N failed, N skipped" that CI tooling reads.
// With CONTACT_LENS_FAIL_ON_SKIP=1 (set by .ci/run) a skipped test fails the run: CI must run everything.
'use strict';
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_TEST_PENDING } = Mocha.Runner.constants;

class SpecWithSummary extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const failOnSkip = process.env.CONTACT_LENS_FAIL_ON_SKIP === '1';
    // counted as a failure of the run (mocha's exit code is the runner's failure count)
    if (failOnSkip) runner.on(EVENT_TEST_PENDING, () => { runner.failures += 1; });
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      process.stdout.write(`\n${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
      if (s.pending > 0 && failOnSkip) process.stdout.write(`FAILED: ${s.pending} test(s) skipped and CONTACT_LENS_FAIL_ON_SKIP=1\n`);
    });
  }
}
module.exports = SpecWithSummary;
