/** `contact-lens diagnose <scene.json | rec.jsonl> [--json] [--fail-on injection]` */
import { parseSceneFile } from '../format/scene.js';
import { frameFromWorld, headerFromWorld } from '../format/worldRecording.js';
import { World } from '../engine/world/world.js';
import { Diagnoser, type Finding } from '../session/diagnose.js';
import { oneOf, parseArgs, UsageError } from './args.js';
import { openRecordingForCli } from './openRecording.js';
import { readText, type Output } from './solveCommand.js';

export const DIAGNOSE_USAGE = 'contact-lens diagnose <scene.json | rec.jsonl> [--json] [--fail-on injection]';

interface Source { readonly label: string; readonly findings: Finding[]; readonly frames: number }

function fromScene(file: string, io: Output, json: boolean): Source[] {
  const { scenarios, warnings } = parseSceneFile(readText(file), file);
  if (!json) for (const w of warnings) io.err(`warning: ${w.message}`);
  return scenarios.map((s) => {
    const world = new World(s.desc);
    const e = world.energy();
    const d = new Diagnoser(headerFromWorld(world), {}, e.kineticLinear + e.kineticRotational + e.potential);
    for (let k = 0; k < s.desc.frames; k++) d.add(frameFromWorld(world, world.step()));
    return { label: `${file} / ${s.desc.name}`, findings: d.findings, frames: s.desc.frames };
  });
}

function fromRecording(file: string, io: Output, json: boolean): Source[] {
  const reader = openRecordingForCli(file);
  try {
    if (!json) for (const x of reader.errors) io.err(`warning: skipped ${x.message}`);
    const d = new Diagnoser(reader.header);
    for (let i = 0; i < reader.frameCount; i++) d.add(reader.frame(i));
    return [{ label: file, findings: d.findings, frames: reader.frameCount }];
  } finally {
    reader.close();
  }
}

export function runDiagnose(argv: readonly string[], io: Output): number {
  const { positionals, options } = parseArgs(argv, ['fail-on'], ['json']);
  if (positionals.length !== 1) throw new UsageError(`expected one scene or recording file\nusage: ${DIAGNOSE_USAGE}`);
  const failOn = options.has('fail-on') ? oneOf(options.get('fail-on'), ['injection'] as const, 'fail-on', 'injection') : null;
  const file = positionals[0];
  const json = options.get('json') === true;
  const sources = file.endsWith('.jsonl') ? fromRecording(file, io, json) : fromScene(file, io, json);
  let injections = 0;
  for (const s of sources) {
    injections += s.findings.length; // every finding is energy that entered the system
    if (json) {
      for (const f of s.findings) io.out(JSON.stringify({ source: s.label, frame: f.frame, time: f.time, contacts: f.contacts, mechanism: f.mechanism, joules: f.joules, explanation: f.explanation }));
      continue;
    }
    io.out(`${s.label}: ${s.frames} frames, ${s.findings.length === 0 ? 'no findings' : `${s.findings.length} finding(s)`}`);
    for (const f of s.findings) {
      io.out(`  frame ${String(f.frame).padStart(5)}  contact ${f.contacts.length ? f.contacts.join(',') : '-'}  ${f.mechanism.padEnd(24)} ${(f.joules >= 0 ? '+' : '') + f.joules.toPrecision(3)} J  ${f.explanation}`);
    }
  }
  return failOn && injections > 0 ? 1 : 0;
}
