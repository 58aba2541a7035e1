/** A tiny argv parser: positionals, `--flag`, `--key value` and `--key=value`. */
import { safeText } from '../format/messages.js';
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface ParsedArgs {
  readonly positionals: string[];
  readonly options: Map<string, string | true>;
}

export function parseArgs(argv: readonly string[], valued: readonly string[], flags: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const key = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    if (flags.includes(key)) {
      if (eq >= 0) throw new UsageError(`--${key} takes no value`);
      options.set(key, true);
    } else if (valued.includes(key)) {
      const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${key} needs a value`);
      options.set(key, value);
    } else {
      throw new UsageError(`unknown option ${safeText(a)}`);
    }
  }
  return { positionals, options };
}

export function oneOf<T extends string>(value: string | true | undefined, allowed: readonly T[], name: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (value === true || !allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got ${safeText(String(value))})`);
  return value as T;
}
