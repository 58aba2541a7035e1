/** Locates and loads ../shared/oracle/public for conformance tests (skips with a reason when absent). */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseOracleInstance, type OracleInstance } from '../../src/format/oracle.js';

export const ORACLE_DIR = resolve(process.env.CONTACT_LENS_ORACLE ?? join(__dirname, '..', '..', '..', 'shared', 'oracle', 'public'));

export function oracleAvailable(): boolean {
  return existsSync(join(ORACLE_DIR, 'index.json'));
}

export const ORACLE_MISSING = `oracle corpus not found at ${ORACLE_DIR} (set CONTACT_LENS_ORACLE); conformance tests skipped`;

export function loadOracle(): OracleInstance[] {
  const index = JSON.parse(readFileSync(join(ORACLE_DIR, 'index.json'), 'utf8')) as { instances: { file: string }[] };
  return index.instances.map((e) => {
    const file = join(ORACLE_DIR, e.file);
    return parseOracleInstance(readFileSync(file, 'utf8'), file);
  });
}
