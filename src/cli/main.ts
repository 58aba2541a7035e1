/** contact-lens command line: dispatch to the sub-commands. */
import { isMainThread } from 'node:worker_threads';
import { safeText } from '../format/messages.js';
import { FormatError } from '../format/oracle.js';
import { ProblemError } from '../engine/index.js';
import { UsageError } from './args.js';
import { runSolve, SOLVE_HELP } from './solveCommand.js';
import { FileError, processOutput, type Output } from './output.js';
import { runSimulate, SIMULATE_HELP } from './simulateCommand.js';
import { runCheck, CHECK_HELP } from './checkCommand.js';
import { runReport, REPORT_HELP } from './reportCommand.js';
import { runDiagnose, DIAGNOSE_HELP } from './diagnoseCommand.js';
import { COMPRESS_HELP, runCompress } from './compressCommand.js';
import { DIFF_HELP, runDiff } from './diffCommand.js';
import { COMPARE_HELP, runCompare } from './compareCommand.js';
import { EXPORT_HELP, runExport } from './exportCommand.js';
import { QUERY_HELP, runQuery } from './queryCommand.js';
import { type CommandHelp, renderHelp, renderOverview, wantsHelp } from './help.js';

/** Every command's help, in the order of the top-level list. */
export const COMMANDS: readonly CommandHelp[] = [
  SOLVE_HELP,
  SIMULATE_HELP,
  REPORT_HELP,
  CHECK_HELP,
  DIAGNOSE_HELP,
  DIFF_HELP,
  COMPARE_HELP,
  COMPRESS_HELP,
  EXPORT_HELP,
  QUERY_HELP,
];

/** `contact-lens --help`: the commands, one line each. */
export const OVERVIEW = renderOverview(COMMANDS);

/** The exit code; a promise of it for `solve` on an HDF5 (FCLIB) file (its reader starts asynchronously), for `compress` (streams), `simulate` (yields to the event loop so Ctrl-C is handled), `diagnose --follow`, `diagnose` of many recordings, `export` and `query`. */
export function main(argv: readonly string[], io: Output): number | Promise<number> {
  const [command, ...rest] = argv;
  const help = COMMANDS.find((c) => c.command === command);
  if (help && wantsHelp(rest)) {
    io.out(renderHelp(help));
    return 0;
  }
  try {
    switch (command) {
      case 'solve': {
        const code = runSolve(rest, io);
        return typeof code === 'number' ? code : code.catch((e: unknown) => badInput(e, io));
      }
      case 'simulate':
        return runSimulate(rest, io).catch((e: unknown) => badInput(e, io));
      case 'report': {
        const code = runReport(rest, io); // a large recording answers later (two threads)
        return typeof code === 'number' ? code : code.catch((e: unknown) => badInput(e, io));
      }
      case 'check':
        return runCheck(rest, io);
      case 'diagnose': {
        const code = runDiagnose(rest, io); // --follow and many recordings answer later
        return typeof code === 'number' ? code : code.catch((e: unknown) => badInput(e, io));
      }
      case 'diff':
        return runDiff(rest, io);
      case 'compare':
        return runCompare(rest, io).catch((e: unknown) => badInput(e, io));
      case 'export':
        return runExport(rest, io).catch((e: unknown) => badInput(e, io));
      case 'query':
        return runQuery(rest, io).catch((e: unknown) => badInput(e, io));
      case 'compress':
        return runCompress(rest, io).catch((e: unknown) => badInput(e, io));
      case 'help': {
        // `contact-lens help solve` is `contact-lens solve --help`
        const of = COMMANDS.find((c) => c.command === rest[0]);
        if (rest.length > 0 && !of) throw new UsageError(`help: unknown command "${rest[0]}" (commands: ${COMMANDS.map((c) => c.command).join(', ')})`);
        io.out(of ? renderHelp(of) : OVERVIEW);
        return 0;
      }
      case undefined:
      case '--help':
      case '-h':
        io.out(OVERVIEW);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${safeText(command)}"\n${OVERVIEW}`);
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

// not in the worker threads of `diagnose --jobs` (runPool.ts), which load this bundle too
if (require.main === module && isMainThread) {
  const code = main(process.argv.slice(2), processOutput());
  if (typeof code === 'number') process.exitCode = code;
  else
    void code.then((c) => {
      process.exitCode = c;
    });
}
