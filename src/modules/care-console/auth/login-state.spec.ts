import fastifyCookie from '@fastify/cookie';
import Fastify, { FastifyInstance } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../infrastructure/time/clock';
import { LOGIN_COOKIE, LoginState, LoginStateCookie } from './login-state';

describe(LoginStateCookie.name, () => {
  let now: number;
  let clock: jest.Mocked<Clock>;
  let sut: LoginStateCookie;
  let server: FastifyInstance;

  beforeEach(async () => {
    now = Date.UTC(2026, 10, 25, 12);
    clock = { now: jest.fn(() => new Date(now)) };
    sut = new LoginStateCookie(AppConfig.load({ PUBLIC_URL: 'https://console.bank.test' }), clock);
    server = Fastify();
    await server.register(fastifyCookie, { secret: 'login-state-spec-secret-of-32-characters' });
    server.get('/care/auth/login', async (_request, reply) => reply.send(sut.issue(reply)));
    server.get('/care/auth/callback', async (request, reply) => reply.send({ login: sut.match(request, (request.query as { state?: string }).state) }));
  });

  afterEach(async () => {
    await server.close();
  });

  async function start(): Promise<{ login: LoginState; cookie: string; header: string }> {
    const res = await server.inject({ method: 'GET', url: '/care/auth/login' });
    const header = String(res.headers['set-cookie']);
    return { login: res.json<LoginState>(), cookie: header.split(';', 1)[0] as string, header };
  }

  const callback = async (cookie: string | undefined, state: string) =>
    (await server.inject({ method: 'GET', url: `/care/auth/callback?state=${encodeURIComponent(state)}`, headers: cookie ? { cookie } : {} })).json<{
      login: LoginState | null;
    }>().login;

  it('issues a signed, HttpOnly, SameSite=Lax, Secure cookie for /care/auth that lives ten minutes', async () => {
    const { login, header } = await start();
    expect(header).toMatch(new RegExp(`^${LOGIN_COOKIE}=[^;]+\\.[^;]+; Max-Age=600; Path=/care/auth; HttpOnly; Secure; SameSite=Lax$`));
    expect(new Set([login.state, login.nonce, login.verifier]).size).toBe(3);
    expect(login.expiresAt).toBe(now + 600_000);
  });

  it('gives the sign-in back for the state it was issued with', async () => {
    const { login, cookie } = await start();
    expect(await callback(cookie, login.state)).toEqual(login);
  });

  it.each([
    ['another state', (cookie: string) => cookie, (state: string) => `${state}x`],
    ['no cookie', () => undefined, (state: string) => state],
    ['a tampered value', (cookie: string) => cookie.replace(/=(.)/, (_match, first: string) => `=${first === 'A' ? 'B' : 'A'}`), (state: string) => state],
  ])('refuses %s', async (_case, cookieOf, stateOf) => {
    const { login, cookie } = await start();
    expect(await callback(cookieOf(cookie), stateOf(login.state))).toBeNull();
  });

  it('refuses a sign-in older than ten minutes, whatever the browser kept', async () => {
    const { login, cookie } = await start();
    now += 600_000;
    expect(await callback(cookie, login.state)).toBeNull();
  });
});
