import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifySession, { FastifySessionOptions } from '@fastify/session';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import connectPgSimple from 'connect-pg-simple';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { decodedOrAsIs } from '../../common/http/percent-decoding';
import { AppConfig } from '../../config/app-config';
import { KeyStore } from '../../infrastructure/crypto/key-store';
import { DatabasePools } from '../../infrastructure/database/database-pools';
import { CONSOLE_CSS } from './views/console.css';
import { errorPage } from './views/pages';

export const CONSOLE_PATH = '/care';
export const SESSION_COOKIE = 'care_session';

/**
 * No inline script or style at all: the pages need no script, and their one stylesheet is a file
 * of this origin. Forms post only to this origin; nothing may frame the console.
 */
export const CONSOLE_CSP = ["default-src 'none'", "style-src 'self'", "img-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"].join(
  '; ',
);

/**
 * `/care` and below, but not `/careers` (nor the REST care API, which lives under /v1). Decided on
 * the decoded path, as the router decides: `/%63are/sign-in` is the console's sign-in page. A path
 * that does not decode is left as it came (Fastify answers it 400 before any route).
 */
export function isConsolePath(url: string): boolean {
  const pathOnly = decodedOrAsIs(url.split('?', 1)[0] ?? '');
  return pathOnly === CONSOLE_PATH || pathOnly.startsWith(`${CONSOLE_PATH}/`);
}

/**
 * Fastify plugins of the console, registered before the app initialises: cookies, the server-side
 * session (@fastify/session with connect-pg-simple on the app's own pg pool, table care_sessions of
 * the app's schema), CSRF tokens kept in that session, the stylesheet and the security headers.
 * Nest registers every controller on the root Fastify instance, so a plugin's hooks cannot be
 * scoped to the console's routes by encapsulation: the plugins are registered as their documents
 * say and their hooks run on every request. The session's are inert outside its cookie's path
 * (/care): no other route reads or writes a session. The console's headers go on /care only.
 */
export async function installConsoleHttp(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const env = config.env.careConsole;
  // Served where the console is (ConsoleGate.served): with an identity provider, or in the sandbox.
  // Elsewhere none of its plugins is registered: no session, cookie or CSRF hook runs on the API's
  // requests, and every /care route answers 404 before it would read a session.
  if (env.oauth === null && !config.isSandbox) return;
  const idleMs = env.sessionIdleMinutes * 60_000;
  const store = sessionStore(app.get(DatabasePools).pool(), config.env.dbSchema, idleMs / 1000);
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const secureCookie = config.env.publicUrl.startsWith('https://');
  const keys = app.get(KeyStore, { strict: false });
  // Signs the short-lived login cookie (state, nonce, PKCE verifier) of a sign-in in progress.
  await app.register(fastifyCookie, { secret: env.sessionSecret ?? keys.derivedSecret('care-console-login-cookie') });
  await app.register(fastifySession, {
    // Every instance sharing SERVICE_KEYS signs alike, so any of them serves a signed-in staff member.
    secret: env.sessionSecret ?? keys.derivedSecret('care-console-session-cookie'),
    cookieName: SESSION_COOKIE,
    store: store as unknown as FastifySessionOptions['store'],
    saveUninitialized: false,
    // Every request moves the expiry: the session ends after CARE_SESSION_IDLE_MINUTES without one.
    rolling: true,
    // Secure is added below: @fastify/session would refuse to save a secure session on a request
    // that reached Node over http, which is every request behind a TLS-terminating load balancer.
    cookie: { path: CONSOLE_PATH, httpOnly: true, sameSite: 'lax', secure: false, maxAge: idleMs },
  });
  await app.register(fastifyCsrf, { sessionPlugin: '@fastify/session' });
  // The pool is the app's: closing the store only stops its pruning timer.
  fastify.addHook('onClose', async () => store.close());
  // Added after the plugins' own onSend hooks, so the session's cookie is already set when it gets Secure.
  fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    if (!isConsolePath(request.url)) return done(null, payload);
    void reply.headers({
      'content-security-policy': CONSOLE_CSP,
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
    });
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
    if (secureCookie && reply.hasHeader('set-cookie')) {
      // Fastify appends set-cookie values: take them off, then put them back marked Secure.
      const cookies = withSecure(reply.getHeader('set-cookie'));
      reply.removeHeader('set-cookie');
      void reply.header('set-cookie', cookies);
    }
    done(null, payload);
  });
  // An unknown path under /care is the console's page too (HTML, CONTRACT section 14), not the API's
  // JSON envelope: Fastify's not-found handler of a plugin registered under the prefix.
  await app.register(
    async (scope: FastifyInstance) => {
      scope.setNotFoundHandler((_request, reply) => {
        void reply.status(404).type('text/html; charset=utf-8').send(errorPage('Not found', 'There is no such page in the care console.'));
      });
    },
    { prefix: CONSOLE_PATH },
  );
  fastify.get(`${CONSOLE_PATH}/assets/console.css`, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(CONSOLE_CSS),
  );
}

const storeLogger = new Logger('CareConsole');

/**
 * connect-pg-simple on the app's own pool, table care_sessions of the app's schema. What it cannot
 * hand to a callback (a prune while the database is down) goes to its `errorLog`, console.error
 * unless given: here the app's logger, with the error's name and SQLSTATE only (a driver's message
 * can quote a statement's values).
 */
export function sessionStore(pool: Pool, schemaName: string, ttlSeconds: number) {
  const PgStore = connectPgSimple(fastifySession as unknown as Parameters<typeof connectPgSimple>[0]);
  return new PgStore({ pool, schemaName, tableName: 'care_sessions', createTableIfMissing: false, ttl: ttlSeconds, errorLog: logStoreError });
}

function logStoreError(...args: unknown[]): void {
  const error = args.find((arg): arg is Error & { code?: unknown } => arg instanceof Error);
  storeLogger.error({ errorName: error?.name, errorCode: error?.code }, 'care session store failed');
}

/** The session cookie gets `Secure` when PUBLIC_URL is https (CONTRACT section 14), whatever the hop to Node was. */
export function withSecure(header: unknown): string[] | undefined {
  if (header === undefined) return undefined;
  const cookies = (Array.isArray(header) ? header : [header]).map(String);
  return cookies.map((cookie) => (cookie.startsWith(`${SESSION_COOKIE}=`) && !/;\s*secure\b/i.test(cookie) ? `${cookie}; Secure` : cookie));
}

/** @fastify/csrf-protection's check, with its refusal turned into a rejection (it would otherwise answer by itself). */
export function verifyCsrf(fastify: FastifyInstance, request: FastifyRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    const replyAdapter = { send: (error: Error) => reject(error) } as unknown as FastifyReply;
    fastify.csrfProtection(request, replyAdapter, () => resolve());
  });
}
