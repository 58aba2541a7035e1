/** Each command's help (`contact-lens <command> --help`): usage, what it does, its options, one example. */

export interface CommandHelp {
  readonly command: string;
  /** The synopsis after "contact-lens ": "solve <problem.json | fclib.hdf5> [options]". */
  readonly synopsis: string;
  /** One line for the top-level list. */
  readonly summary: string;
  /** A few lines: what it reads, what it prints, exit codes when they differ from the usual. */
  readonly description: readonly string[];
  /** [flag, what it does]. */
  readonly options: readonly (readonly [string, string])[];
  /** One command line that works from the repository's root. */
  readonly example: string;
}

/** `--help` and `-h` anywhere in a command's arguments ask for its help. */
export const wantsHelp = (argv: readonly string[]): boolean => argv.some((a) => a === '--help' || a === '-h');

const HELP_OPTION: readonly [string, string] = ['-h, --help', 'print this help and exit'];

function optionLines(options: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...options.map(([flag]) => flag.length));
  return options.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`);
}

export function renderHelp(h: CommandHelp): string {
  return [
    `usage: contact-lens ${h.synopsis}`,
    '',
    ...h.description,
    '',
    'options:',
    ...optionLines([...h.options, HELP_OPTION]),
    '',
    'example:',
    `  contact-lens ${h.example}`,
  ].join('\n');
}

/** The top level: every command in one line each, the exit codes and where to read more. */
export function renderOverview(commands: readonly CommandHelp[]): string {
  const width = Math.max(...commands.map((c) => c.command.length));
  return [
    'usage: contact-lens <command> [arguments] [options]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.command.padEnd(width)}  ${c.summary}`),
    '',
    'contact-lens <command> --help prints the command’s options and an example.',
    'Exit codes: 0 success, 1 a solver failed or a check failed, 2 bad input.',
    'Formats: docs/scene-format.md, docs/recording-format.md, docs/problem-format.md.',
    '',
    'example:',
    `  contact-lens ${commands[0].example}`,
  ].join('\n');
}
