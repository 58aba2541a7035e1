/**
 * CLI: npx tsx test/peers/record.ts <engine> <scene> --out FILE [--iterations N] [--no-stabilization]
 *      [--status converged|max-iterations] [--frames N]
 * Records a real engine (cannon | rapier | jolt | mujoco | bullet) on a bundled scene (stack | bounce | slide) in
 * our recording format (docs/recording-format.md). Without --out, writes into a fresh temp directory.
 */
import { isSceneName } from './scenes.js';
import { recordPeer, type RecordPeerOptions } from './recordPeer.js';
import { PEER_ENGINES, type PeerEngineName } from './types.js';

const USAGE =
  'usage: npx tsx test/peers/record.ts <cannon|rapier|jolt|mujoco|bullet> <stack|bounce|slide> [--out FILE] [--iterations N] [--no-stabilization] [--status converged|max-iterations] [--frames N]';

export function parseRecordArgs(argv: readonly string[]): { engine: PeerEngineName; scene: 'stack' | 'bounce' | 'slide'; options: RecordPeerOptions } {
  const pos: string[] = [];
  const opts: { -readonly [K in keyof RecordPeerOptions]: RecordPeerOptions[K] } = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a}: missing value\n${USAGE}`);
      return v;
    };
    const int = (): number => {
      const v = value(),
        n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a}: "${v}" is not a positive integer`);
      return n;
    };
    if (a === '--out') opts.out = value();
    else if (a === '--iterations') opts.iterations = int();
    else if (a === '--frames') opts.frames = int();
    else if (a === '--no-stabilization') opts.stabilization = false;
    else if (a === '--status') {
      const v = value();
      if (v !== 'converged' && v !== 'max-iterations') throw new Error(`--status: "${v}" must be converged or max-iterations`);
      opts.status = v;
    } else if (a.startsWith('--')) throw new Error(`${a}: unknown option\n${USAGE}`);
    else pos.push(a);
  }
  if (pos.length !== 2) throw new Error(USAGE);
  const [engine, scene] = pos;
  if (!(PEER_ENGINES as readonly string[]).includes(engine)) throw new Error(`engine: "${engine}" is not one of ${PEER_ENGINES.join(', ')}`);
  if (!isSceneName(scene)) throw new Error(`scene: "${scene}" is not one of stack, bounce, slide`);
  return { engine: engine as PeerEngineName, scene, options: opts };
}

async function main(): Promise<void> {
  let args: ReturnType<typeof parseRecordArgs>;
  try {
    args = parseRecordArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  try {
    const file = await recordPeer(args.engine, args.scene, args.options);
    process.stdout.write(`${file}\n`);
  } catch (e) {
    process.stderr.write(`${args.engine} ${args.scene}: ${(e as Error).message}\n`);
    process.exitCode = 1;
  }
}

if (require.main === module) void main();
