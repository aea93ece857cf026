import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClsServiceManager } from 'nestjs-cls';
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

describe('the request line', () => {
  /** A root logger writing to an array, its request-line hook, and a way to answer a request through it. */
  function logging(level = 'info') {
    const lines: string[] = [];
    captureLogs({ write: (line: string) => void lines.push(line) });
    const root = createRootLogger(level);
    captureLogs(undefined);
    let hook: ((request: FastifyRequest, reply: FastifyReply, done: () => void) => void) | undefined;
    installRequestLogging({ addHook: (_name: string, handler: typeof hook) => (hook = handler) } as unknown as FastifyInstance, root);
    const answer = (url: string, statusCode: number) =>
      hook?.({ id: 'gen-1', method: 'POST', url } as FastifyRequest, { statusCode, elapsedTime: 12.345 } as FastifyReply, () => undefined);
    return { root, lines, answer };
  }

  const parsedWithoutTime = (line: string | undefined) => {
    const parsed = JSON.parse(line ?? 'null') as Record<string, unknown>;
    expect(typeof parsed.time).toBe('number');
    delete parsed.time;
    return parsed;
  };

  it("is the line pino writes for the same fields, key for key and in pino's order, with the request's requestId", () => {
    const { root, lines, answer } = logging();
    const cls = ClsServiceManager.getClsService();
    cls.run(() => {
      cls.set('requestId', 'req-"1"');
      answer('/v1/programs/p1/enrollments?validateOnly=true', 200);
      root.info(
        { req: { id: 'gen-1', method: 'POST', url: '/v1/programs/p1/enrollments' }, res: { statusCode: 200 }, responseTime: 12.3 },
        'request completed',
      );
      answer('/v1/programs/p1/accounts/"x"', 503);
      root.error(
        { req: { id: 'gen-1', method: 'POST', url: '/v1/programs/p1/accounts/"x"' }, res: { statusCode: 503 }, responseTime: 12.3 },
        'request errored',
      );
    });
    expect(lines).toHaveLength(4);
    for (const [ours, pinos] of [
      [lines[0], lines[1]],
      [lines[2], lines[3]],
    ]) {
      expect(ours?.endsWith('\n')).toBe(true);
      expect(Object.keys(parsedWithoutTime(ours))).toEqual(Object.keys(parsedWithoutTime(pinos)));
      expect(parsedWithoutTime(ours)).toEqual(parsedWithoutTime(pinos));
    }
    expect(parsedWithoutTime(lines[0])).toMatchObject({
      level: 30,
      requestId: 'req-"1"',
      req: { url: '/v1/programs/p1/enrollments' },
      msg: 'request completed',
    });
    expect(parsedWithoutTime(lines[2])).toMatchObject({ level: 50, res: { statusCode: 503 }, msg: 'request errored' });
  });

  it('follows the level: below it nothing is written; outside a request there is no requestId', () => {
    const { lines, answer } = logging('error');
    answer('/health', 200);
    expect(lines).toHaveLength(0);
    answer('/health', 500);
    expect(lines).toHaveLength(1);
    expect(parsedWithoutTime(lines[0])).not.toHaveProperty('requestId');
  });
});
