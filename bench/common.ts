/** What every benchmark prints first and how it reads its arguments (`--json`, `--quick`). */
import os from 'node:os';

export interface BenchArgs {
  readonly json: boolean;
  readonly quick: boolean;
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const known = new Set(['--json', '--quick']);
  for (const a of argv) if (!known.has(a)) throw new Error(`unknown argument ${a} (expected --json and/or --quick)`);
  return { json: argv.includes('--json'), quick: argv.includes('--quick') };
}

export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
  /** 1-minute load average when the benchmark started (other processes disturb the timings). */
  readonly loadAverage: number;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
    cores: cpus.length,
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadAverage: os.loadavg()[0],
  };
}
