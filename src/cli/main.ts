/** contact-lens command line: dispatch to the sub-commands. */
import { FormatError } from '../format/oracle.js';
import { ProblemError } from '../engine/problem.js';
import { UsageError } from './args.js';
import { runSolve, SOLVE_USAGE, type Output } from './solveCommand.js';

const USAGE = `usage:
  ${SOLVE_USAGE}

Solves a friction-contact problem (the oracle instance format, docs/problem-format.md) with projected
Gauss–Seidel, projected Newton and/or the interior-point method, and prints λ, status, iterations,
objective and the KKT residuals. Exit code 0 on success, 1 if a solver failed, 2 on bad input.`;

export function main(argv: readonly string[], io: Output): number {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'solve':
        return runSolve(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"\n${USAGE}`);
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof FormatError || e instanceof ProblemError) {
      io.err(`contact-lens: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

if (require.main === module) {
  const code = main(process.argv.slice(2), { out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n') });
  process.exitCode = code;
}
