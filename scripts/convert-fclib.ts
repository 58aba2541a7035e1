/**
 * Converts an FCLIB local problem (HDF5) into our problem format (docs/problem-format.md), so that tests and
 * users without the HDF5 file can still solve it:
 *   npx tsx scripts/convert-fclib.ts [in.hdf5] [out.json]
 * defaults: ../shared/fclib/local_problem_test.hdf5 (or $CONTACT_LENS_FCLIB) → examples/problems/fclib-boxes-stack.json.
 * A = W, b = −q, μ as read by src/format/fclib.ts; FCLIB's own reference data (/solution, /guesses) and the
 * provenance are kept under the extra key `fclib` (ignored by `contact-lens solve`).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readFclibLocal } from '../src/format/fclib.js';

const input = resolve(process.argv[2] ?? process.env.CONTACT_LENS_FCLIB ?? '../shared/fclib/local_problem_test.hdf5');
const output = process.argv[3] ?? 'examples/problems/fclib-boxes-stack.json';

void (async () => {
  const p = await readFclibLocal(input, input);
  const m = p.matrix;
  const pair = (x: { r: Float64Array; u: Float64Array }) => ({ r: Array.from(x.r), u: Array.from(x.u) });
  const doc = {
    schema_version: 1,
    id: 'fclib-boxes-stack',
    source: 'fclib',
    num_contacts: m.contactCount,
    n: m.size,
    eps: 0,
    A: Array.from(m.A),
    b: Array.from(m.b),
    mu: Array.from(m.mu),
    solution: null,
    fclib: {
      origin: 'FCLIB library test file src/tests/data/local_problem_test.hdf5 (FrictionalContactLibrary/fclib, Apache-2.0)',
      title: p.title,
      description: p.description,
      conversion: 'A = W (stored as ' + p.storage + ', ' + p.storedEntries + ' entries), b = -q, mu; lambda = r, w = u',
      solution: p.solution ? pair(p.solution) : null,
      guesses: p.guesses.map(pair),
    },
  };
  writeFileSync(output, JSON.stringify(doc) + '\n');
  console.log(`wrote ${output}: ${m.contactCount} contacts, ${m.size} unknowns (W stored as ${p.storage}, ${p.storedEntries} entries)`);
})().catch((e: unknown) => {
  console.error(`convert-fclib: ${(e as Error).message}`);
  process.exitCode = 2;
});
