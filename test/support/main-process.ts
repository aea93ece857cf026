import { spawn } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * `src/main.ts` (what `npm start` runs, unbuilt, and without `npm start`'s flags) as its own process
 * with `env` only, its output kept.
 */
export function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.spec.json'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { out: '', err: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}
