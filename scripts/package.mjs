// Builds the VSIX (production bundles, .vscodeignore keeps it small) into artifacts/contact-lens.vsix and
// prints its size and file list. `vsce package` runs the vscode:prepublish script (minified build).
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

const out = resolve(process.argv[2] ?? 'artifacts/contact-lens.vsix');
mkdirSync(resolve(out, '..'), { recursive: true });
execFileSync(process.execPath, [resolve('node_modules/@vscode/vsce/vsce'), 'package', '--no-dependencies', '--no-rewrite-relative-links', '-o', out], {
  stdio: 'inherit',
});
console.log(`VSIX ${out}: ${(statSync(out).size / 1024).toFixed(0)} KiB`);
