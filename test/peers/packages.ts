import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

/** The installed version of an npm package (its package.json, found next to node_modules/NAME). */
export function packageVersion(name: string): string {
  // Packages with an `exports` map (Rapier) refuse require.resolve('NAME/package.json'): walk the paths.
  const req = createRequire(__filename);
  for (const dir of req.resolve.paths(name) ?? []) {
    try {
      const pj = JSON.parse(readFileSync(path.join(dir, name, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pj.name === name && pj.version) return pj.version;
    } catch {
      /* not in this directory */
    }
  }
  return 'unknown';
}
