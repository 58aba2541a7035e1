/**
 * Which of our file kinds a path holds, guessed from its first bytes, so that a command given the wrong
 * kind says what the file is and which command reads it (`solve` on a scene file), instead of a parse
 * error about a field of the kind it expected ("mu: expected an array").
 */
import * as fs from 'node:fs';
import { isGzip } from '../format/bgzf.js';
import { isHdf5 } from '../format/fclib.js';
import { UsageError } from './args.js';

export type InputKind = 'scene' | 'recording' | 'problem';

/** Bytes read to guess the kind (a pretty-printed scene's "scenarios" key comes first, a recording's header is line 1). */
const HEAD_BYTES = 64 * 1024;

const KINDS: Readonly<Record<InputKind, { readonly name: string; readonly plural: string; readonly doc: string; readonly commands: readonly string[] }>> = {
  scene: { name: 'a scene file', plural: 'scene files', doc: 'docs/scene-format.md', commands: ['check', 'simulate', 'diagnose', 'compare'] },
  recording: { name: 'a recording', plural: 'recordings', doc: 'docs/recording-format.md', commands: ['report', 'diagnose', 'diff', 'compress'] },
  problem: { name: 'a problem file', plural: 'problem files', doc: 'docs/problem-format.md', commands: ['solve'] },
};

function readHead(file: string): Buffer | null {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    try {
      if (!fs.fstatSync(fd).isFile()) return null;
      const buf = Buffer.alloc(HEAD_BYTES);
      return buf.subarray(0, fs.readSync(fd, buf, 0, HEAD_BYTES, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null; // unreadable: the command's own reader names the problem
  }
}

/** The kind the first bytes show, or null when they show none of ours (the command's parser then explains). */
export function sniffKind(head: Uint8Array): InputKind | null {
  if (isHdf5(head)) return 'problem'; // FCLIB
  if (isGzip(head)) return 'recording'; // recordings are the only files we read compressed
  const text = Buffer.from(head).toString('utf8');
  const firstLine = text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length).trim();
  if (firstLine.startsWith('{') && /"format"\s*:\s*"contact-lens-recording"/.test(firstLine)) return 'recording';
  if (/"scenarios"\s*:\s*\[/.test(text) && !/"schema_version"\s*:/.test(text)) return 'scene';
  if (/"schema_version"\s*:/.test(text) && /"(A|num_contacts)"\s*:/.test(text)) return 'problem';
  return null;
}

/** The kind of the file at `file`, or null when it is unreadable or none of ours. */
export function kindOfFile(file: string): InputKind | null {
  const head = readHead(file);
  return head && sniffKind(head);
}

/**
 * Throws a one-line UsageError when `file` is one of our kinds but not one `command` reads:
 * "x.scene.json: is a scene file (docs/scene-format.md), not a problem file: `solve` reads problem files;
 * for a scene file use contact-lens check x.scene.json (or simulate, diagnose)".
 */
export function requireKind(file: string, command: string, accepted: readonly InputKind[]): void {
  const kind = kindOfFile(file);
  if (!kind || accepted.includes(kind)) return;
  const k = KINDS[kind];
  const [first, ...others] = k.commands;
  throw new UsageError(
    `${file}: is ${k.name} (${k.doc}), not ${accepted.map((a) => KINDS[a].name).join(' or ')}: \`${command}\` reads ${accepted
      .map((a) => KINDS[a].plural)
      .join(' and ')}; for ${k.name} use contact-lens ${first} ${file}${others.length ? ` (or ${others.join(', ')})` : ''}`,
  );
}
