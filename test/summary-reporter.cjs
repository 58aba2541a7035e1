// Mocha's spec reporter plus one plain closing line "N passed, N failed, N skipped" that CI tooling reads.
'use strict';
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SpecWithSummary extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      process.stdout.write(`\n${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
    });
  }
}
module.exports = SpecWithSummary;
