import Fastify from 'fastify';
import { recordAnswerCode } from '../../common/http/answer-code';
import { captureLogs, censorSensitive, createRootLogger, installRequestLogging } from './logging';

describe(censorSensitive.name, () => {
  it('censors sensitive keys at any depth and in arrays, leaving the rest', () => {
    const input = { eventId: 'e1', user: { profile: { lastName: 'Núñez', tags: [{ ssn: '123456789', kind: 'x' }] } }, count: 2 };
    expect(censorSensitive(input)).toEqual({
      eventId: 'e1',
      user: { profile: { lastName: '[redacted]', tags: [{ ssn: '[redacted]', kind: 'x' }] } },
      count: 2,
    });
  });

  it('censors credentials in a header object, should one ever be logged', () => {
    const line = { req: { headers: { authorization: 'Bearer eyJ', cookie: 'sid=1', accept: '*/*' } }, res: { headers: { 'set-cookie': ['sid=2'] } } };
    expect(censorSensitive(line)).toEqual({
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]', accept: '*/*' } },
      res: { headers: { 'set-cookie': '[redacted]' } },
    });
  });

  it('never mutates the logged object and returns it as is when nothing is sensitive', () => {
    const clean = { requestId: 'r', nested: { statusCode: 200 } };
    expect(censorSensitive(clean)).toBe(clean);
    const dirty = { encryptedUserData: { firstName: 'José' } };
    censorSensitive(dirty);
    expect(dirty.encryptedUserData.firstName).toBe('José');
  });

  it('censors a subtree nested deeper than it walks, and class instances like any object', () => {
    let deep: Record<string, unknown> = { ssn: '123456789' };
    for (let i = 0; i < 20; i += 1) deep = { a: deep };
    expect(JSON.stringify(censorSensitive(deep))).not.toContain('123456789');
    class Dto {
      email = 'jose@example.com';
    }
    expect(censorSensitive({ dto: new Dto() })).toEqual({ dto: { email: '[redacted]' } });
  });
});

describe(installRequestLogging.name, () => {
  /** A Fastify instance with the request-line hook over a root logger writing to an array. */
  async function serving(level = 'info') {
    const lines: string[] = [];
    captureLogs({ write: (line: string) => void lines.push(line) });
    const root = createRootLogger(level);
    captureLogs(undefined);
    // As the app's genReqId (request-id.ts): the header's id, else a generated one.
    const sut = Fastify({ genReqId: (raw) => (raw.headers['x-request-id'] as string | undefined) ?? 'generated-id' });
    installRequestLogging(sut, root);
    sut.get('/v1/things/:id', async (request, reply) => reply.status(request.query && 'fail' in (request.query as object) ? 503 : 200).send({ ok: true }));
    sut.get('/v1/programs/:programCode/things', async (request, reply) => {
      (request as { user?: unknown }).user = { partner: { partnerId: 'acme', programs: ['sandbox'] } };
      recordAnswerCode(request, { code: 400, subCode: 7 });
      return reply.status(400).send({ ok: false });
    });
    await sut.ready();
    const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    return { sut, parsed };
  }

  it('writes one line per request with its method, path without the query, status and time, and the requestId', async () => {
    const { sut, parsed } = await serving();
    await sut.inject({ method: 'GET', url: '/v1/things/1?ssn=123456789', headers: { authorization: 'Bearer eyJ', cookie: 'sid=1', 'x-request-id': 'req-1' } });
    expect(parsed()).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        pid: process.pid,
        hostname: expect.any(String),
        requestId: 'req-1',
        req: { method: 'GET', url: '/v1/things/1', route: '/v1/things/:id' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
        msg: 'request completed',
      },
    ]);
    await sut.close();
  });

  it("adds the partner, the program code and the answer's code and subCode when the request has them", async () => {
    const { sut, parsed } = await serving();
    await sut.inject({ method: 'GET', url: '/v1/programs/sandbox/things' });
    expect(parsed()).toEqual([
      expect.objectContaining({
        partnerId: 'acme',
        programCode: 'sandbox',
        req: { method: 'GET', url: '/v1/programs/sandbox/things', route: '/v1/programs/:programCode/things' },
        res: { statusCode: 400, code: 400, subCode: 7 },
      }),
    ]);
    await sut.close();
  });

  it("writes a 5xx at level error, nothing below the level; with no request context opened, the line carries Fastify's request id", async () => {
    const { sut, parsed } = await serving('error');
    await sut.inject({ method: 'GET', url: '/v1/things/1' });
    await sut.inject({ method: 'GET', url: '/v1/things/1?fail', headers: { 'x-request-id': 'fastify-id-1' } });
    expect(parsed()).toEqual([expect.objectContaining({ level: 50, res: { statusCode: 503 }, msg: 'request errored' })]);
    expect(parsed()[0]?.requestId).toBe('fastify-id-1');
    await sut.close();
  });
});
