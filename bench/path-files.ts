/**
 * The files of `src/` a first enrollment runs, measured: the whole app in this process (Fastify's
 * inject, as `cpu.ts`), a few enrollments to warm it, then V8's precise coverage (the inspector's
 * public `Profiler` domain) around one new consumer enrollment. Every compiled `src/` file with a
 * function that ran is listed, in three groups: the DTOs and entities, the edge (hooks, guard,
 * envelope, logs, metrics, traces), and the call from the controller to COMMIT. Issue 35 asks for
 * about 15 files there; the README's request path cites this count.
 * `npm run build && node dist/bench/path-files.js`.
 */
import { Session } from 'node:inspector/promises';
import * as path from 'node:path';
import { AppConfig } from '../src/config/app-config';
import { createApp } from '../src/app.factory';
import { enrolledFrom } from './requests';
import { injectInto, nextEnrollment } from './scenarios';
import { accessTokenOf, benchTokenRequest, createWorkspace } from './workspace';
import { GROUPS, groupOf, sourceFileOf } from './path-groups';

async function main(): Promise<void> {
  const workspace = await createWorkspace({ label: 'path-files' });
  // No background work (job polling, webhook delivery) to run code during the one enrollment measured.
  const env = workspace.serviceEnv({ LOG_LEVEL: 'warn', NODE_ENV: 'production', JOBS_ENABLED: 'false' });
  Object.assign(process.env, env);
  const app = await createApp(AppConfig.load(env));
  const session = new Session();
  session.connect();
  try {
    const inject = injectInto(app.getHttpAdapter().getInstance());
    const tokenAnswer = await inject(benchTokenRequest());
    const token = accessTokenOf(tokenAnswer.statusCode, tokenAnswer.payload);
    const enroll = async () => {
      const request = nextEnrollment(token);
      const answer = await inject(request);
      if (!enrolledFrom(answer.statusCode, answer.payload, request.body ?? ''))
        throw new Error(`enrollment answered ${answer.statusCode}: ${answer.payload.slice(0, 200)}`);
    };
    for (let i = 0; i < 3; i++) await enroll();
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await session.post('Profiler.takePreciseCoverage'); // from here on: the one enrollment below
    await enroll();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    const files = new Set<string>();
    for (const script of result) {
      const file = sourceFileOf(script.url);
      if (file && script.functions.some((fn) => fn.ranges[0]?.count > 0)) files.add(file);
    }
    process.stdout.write(`One new consumer enrollment ran code in ${files.size} files of src/:\n`);
    for (const group of GROUPS) {
      const list = [...files].filter((file) => groupOf(file) === group).sort();
      process.stdout.write(`\n${group}: ${list.length}\n${list.map((f) => `  ${path.join('src', f)}`).join('\n')}\n`);
    }
  } finally {
    session.disconnect();
    await app.close();
    await workspace.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
