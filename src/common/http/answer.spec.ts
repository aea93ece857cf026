import Fastify, { FastifyInstance, FastifyRequest } from 'fastify';
import { installAnswerCode } from './answer-code';
import { installEnvelope, rawResponse, validatedOnly } from './answer';

/** The envelope hook on a real Fastify instance, each route returning what one kind of handler returns. */
describe(installEnvelope.name, () => {
  let fastify: FastifyInstance;
  const codes = new Map<string, FastifyRequest['answerCode']>();

  beforeAll(async () => {
    fastify = Fastify({ genReqId: () => 'req-1' });
    installAnswerCode(fastify);
    installEnvelope(fastify);
    fastify.addHook('onResponse', (request, _reply, done) => {
      codes.set(request.url, request.answerCode);
      done();
    });
    fastify.get('/data', async () => ({ account: { accountIdentifier: 'A1' } }));
    fastify.get('/valid', async () => validatedOnly());
    fastify.get('/raw-object', async () => rawResponse({ error: 'invalid_client' }, { 'www-authenticate': 'Basic' }));
    fastify.get('/raw-text', async () =>
      rawResponse('{"requestId":"old","responseDetails":[{"code":0,"subCode":0}]}', { 'idempotent-replayed': 'true' }, { code: 0, subCode: 0 }),
    );
    fastify.get('/text', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('# HELP up 1'));
    fastify.get('/error-text', async (_request, reply) => reply.status(404).type('application/json; charset=utf-8').send('{"requestId":"req-1"}'));
    fastify.get('/own-reply', (_request, reply) => {
      void reply.send();
    });
    await fastify.ready();
  });

  afterAll(() => fastify.close());

  it("wraps a handler's data in the success envelope and records code 0 for the request line", async () => {
    const res = await fastify.inject({ url: '/data' });
    expect(res.json()).toEqual({
      requestId: 'req-1',
      responseDetails: [expect.objectContaining({ code: 0, subCode: 0 })],
      account: { accountIdentifier: 'A1' },
    });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(codes.get('/data')).toMatchObject({ code: 0, subCode: 0 });
  });

  it('answers a validate-only pass as the envelope alone', async () => {
    const res = await fastify.inject({ url: '/valid' });
    expect(res.json()).toEqual({ requestId: 'req-1', responseDetails: [expect.objectContaining({ code: 0, description: 'Valid' })] });
  });

  it('sends a RawResponse object as it is, its headers on the reply', async () => {
    const res = await fastify.inject({ url: '/raw-object' });
    expect(res.json()).toEqual({ error: 'invalid_client' });
    expect(res.headers['www-authenticate']).toBe('Basic');
    expect(codes.get('/raw-object')).toBeNull();
  });

  it('sends a RawResponse of JSON text byte for byte, not serialised again, with its code for the request line', async () => {
    const res = await fastify.inject({ url: '/raw-text' });
    expect(res.body).toBe('{"requestId":"old","responseDetails":[{"code":0,"subCode":0}]}');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(codes.get('/raw-text')).toEqual({ code: 0, subCode: 0 });
  });

  it('leaves text alone: a page or metrics with their own type, and an error the filter sent as text', async () => {
    const text = await fastify.inject({ url: '/text' });
    expect(text.body).toBe('# HELP up 1');
    const error = await fastify.inject({ url: '/error-text' });
    expect(error.statusCode).toBe(404);
    expect(error.body).toBe('{"requestId":"req-1"}');
    expect(codes.get('/error-text')).toBeNull();
  });

  it('renders nothing for a handler that wrote its own empty reply', async () => {
    const res = await fastify.inject({ url: '/own-reply' });
    expect(res.body).toBe('');
    expect(codes.get('/own-reply')).toBeNull();
  });
});
