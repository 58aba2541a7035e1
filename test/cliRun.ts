/** The CLI's main() with its output captured, for tests: each printed text one entry (or, with splitLines, one entry a line). */
import { main } from '../src/cli/main.js';

export interface CliRun<Code> {
  readonly code: Code;
  readonly out: string[];
  readonly err: string[];
}

/** main() as it returns: a number, or a promise for the commands that read or write asynchronously. */
export function runCli(args: string[]): CliRun<number | Promise<number>> {
  const out: string[] = [],
    err: string[] = [];
  const code = main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

/** main() awaited (simulate, compress and solve on HDF5 return a promise). */
export async function runCliAsync(args: string[], options: { readonly splitLines?: boolean } = {}): Promise<CliRun<number>> {
  const out: string[] = [],
    err: string[] = [];
  const code = await main(args, { out: (l) => (options.splitLines ? out.push(...l.split('\n')) : out.push(l)), err: (l) => err.push(l) });
  return { code, out, err };
}
