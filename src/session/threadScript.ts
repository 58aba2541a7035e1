/**
 * Where a thread finds its code: the bundle dist/NAME.js beside the bundle that starts it (dist/worker.js, dist/cli.js), or,
 * run from the sources (tests under tsx), the .ts module `source` (relative to this folder) through tsx.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';

export function startThread(bundle: string, source: string): Worker {
  const bundled = path.join(__dirname, `${bundle}.js`);
  if (fs.existsSync(bundled)) return new Worker(bundled);
  // from the sources: tsx's loader registered in the thread first (an execArgv of --import does not reach it)
  const file = path.join(__dirname, `${source}.ts`);
  const code = `require('tsx/cjs/api').register(); require(${JSON.stringify(file)});`;
  return new Worker(code, { eval: true });
}
