/** contact-lens command line: dispatch to the sub-commands. */
import { safeText } from '../format/messages.js';
import { FormatError } from '../format/oracle.js';
import { ProblemError } from '../engine/problem.js';
import { UsageError } from './args.js';
import { runSolve, SOLVE_USAGE } from './solveCommand.js';
import { FileError, processOutput, type Output } from './output.js';
import { runSimulate, SIMULATE_USAGE } from './simulateCommand.js';
import { runCheck, CHECK_USAGE } from './checkCommand.js';
import { runReport, REPORT_USAGE } from './reportCommand.js';
import { runDiagnose, DIAGNOSE_USAGE } from './diagnoseCommand.js';
import { COMPRESS_USAGE, runCompress } from './compressCommand.js';

const USAGE = `usage:
  ${SOLVE_USAGE}
  ${SIMULATE_USAGE}
  ${REPORT_USAGE}
  ${CHECK_USAGE}
  ${DIAGNOSE_USAGE}
  ${COMPRESS_USAGE}

solve     solves one friction-contact problem (docs/problem-format.md) with PGS, projected Newton and/or
          the interior-point method; prints λ, status, iterations, objective and the KKT residuals.
simulate  runs a scenario of a *.scene.json file (docs/scene-format.md) and writes a recording
          (docs/recording-format.md); progress on stderr; never overwrites without --force.
report    summarises a recording (ours or another engine's) in one streaming pass.
check     runs every scenario of a scene file and checks its expectations (exit 0 only if all hold).
diagnose  finds energy injection (frame, contact, mechanism, joules) in a scene's run or a recording;
          --fail-on injection exits 1 when any injection finding exists.
compress  rewrites a recording (plain or gzip) as blocked gzip (BGZF), which opens and seeks frame by frame.
Exit codes: 0 success, 1 a solver failed / an expectation failed, 2 bad input.`;

/** The exit code; a promise of it for `solve` on an HDF5 (FCLIB) file (its reader starts asynchronously), for `compress` (streams) and `simulate` (yields to the event loop so Ctrl-C is handled). */
export function main(argv: readonly string[], io: Output): number | Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'solve': {
        const code = runSolve(rest, io);
        return typeof code === 'number' ? code : code.catch((e: unknown) => badInput(e, io));
      }
      case 'simulate':
        return runSimulate(rest, io).catch((e: unknown) => badInput(e, io));
      case 'report':
        return runReport(rest, io);
      case 'check':
        return runCheck(rest, io);
      case 'diagnose':
        return runDiagnose(rest, io);
      case 'compress':
        return runCompress(rest, io).catch((e: unknown) => badInput(e, io));
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${safeText(command)}"\n${USAGE}`);
    }
  } catch (e) {
    return badInput(e, io);
  }
}

/** Bad input (usage, format, problem, file) is one line on stderr and exit code 2; anything else is a bug. */
function badInput(e: unknown, io: Output): number {
  if (e instanceof UsageError || e instanceof FormatError || e instanceof ProblemError || e instanceof FileError) {
    io.err(`contact-lens: ${e.message}`);
    return 2;
  }
  throw e;
}

if (require.main === module) {
  const code = main(process.argv.slice(2), processOutput());
  if (typeof code === 'number') process.exitCode = code;
  else
    void code.then((c) => {
      process.exitCode = c;
    });
}
