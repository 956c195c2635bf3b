// Builds the package from the relay's own sources (src/client/ and the few modules it imports),
// so the client published here is the same code the relay's tests run. tsc follows the imports
// from src/client/index.ts; nothing else of the relay (no platform SDK) is compiled in.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// typescript from this package's devDependencies, else from the repository's node_modules.
const tsc = createRequire(`${here}/`).resolve('typescript/bin/tsc');
rmSync(`${here}/dist`, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', `${here}/tsconfig.json`], { stdio: 'inherit' });
