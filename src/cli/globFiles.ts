/**
 * File arguments with wildcards, for the commands that take many recordings (a shell expands them too, but not
 * every shell, nor a quoted pattern, nor a Windows prompt): `*` and `?` within a name, `**` for any number of
 * folders, `{a,b}` alternatives. Matches are regular files, sorted, each once; a pattern that matches nothing is
 * one clear error. Folders are walked once each; symbolic links to folders are not followed (no cycles).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { safePath } from '../format/messages.js';
import { UsageError } from './args.js';

const MAGIC = /[*?{]/;

/** `{a,b}` alternatives expanded (nested ones too). */
function braces(p: string): string[] {
  const open = p.indexOf('{');
  if (open < 0) return [p];
  let depth = 0;
  for (let i = open; i < p.length; i++) {
    if (p[i] === '{') depth++;
    else if (p[i] === '}' && --depth === 0) {
      const parts: string[] = [];
      let d = 0,
        from = open + 1;
      for (let j = open + 1; j < i; j++) {
        if (p[j] === '{') d++;
        else if (p[j] === '}') d--;
        else if (p[j] === ',' && d === 0) {
          parts.push(p.slice(from, j));
          from = j + 1;
        }
      }
      parts.push(p.slice(from, i));
      return parts.flatMap((x) => braces(p.slice(0, open) + x + p.slice(i + 1)));
    }
  }
  return [p];
}

/** A name pattern (no /) as a regular expression. */
function nameRegex(seg: string): RegExp {
  const re = seg
    .replace(/[.+^$()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${re}$`);
}

function walk(dir: string, segs: readonly string[], out: Set<string>): void {
  if (segs.length === 0) return;
  const [seg, ...rest] = segs;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir || '.', { withFileTypes: true });
  } catch {
    return;
  }
  if (seg === '**') {
    walk(dir, rest, out); // zero folders
    for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name), segs, out);
    return;
  }
  const re = nameRegex(seg);
  for (const e of entries) {
    if (!re.test(e.name) || (e.name.startsWith('.') && !seg.startsWith('.'))) continue;
    const p = path.join(dir, e.name);
    if (rest.length === 0) {
      if (e.isFile() || (e.isSymbolicLink() && fs.statSync(p, { throwIfNoEntry: false })?.isFile())) out.add(p);
    } else if (e.isDirectory()) walk(p, rest, out);
  }
}

/** The files the arguments name, sorted; an argument without wildcards must be a file that exists. */
export function expandFiles(args: readonly string[]): string[] {
  const out = new Set<string>();
  for (const arg of args) {
    if (!MAGIC.test(arg)) {
      if (!fs.existsSync(arg)) throw new UsageError(`${safePath(arg)}: cannot read the file (no such file)`);
      out.add(arg);
      continue;
    }
    const before = out.size;
    for (const p of braces(arg)) {
      const parts = p.split(/[\\/]+/);
      const first = parts.findIndex((s) => MAGIC.test(s));
      if (first < 0) {
        if (fs.existsSync(p)) out.add(p);
        continue;
      }
      const base = parts.slice(0, first).join('/') || (p.startsWith('/') ? '/' : '');
      walk(base, parts.slice(first), out);
    }
    if (out.size === before) throw new UsageError(`${safePath(arg)}: no file matches this pattern`);
  }
  return [...out].sort();
}
