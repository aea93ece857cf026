import type { CallHandler, ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { lastValueFrom, of } from 'rxjs';
import { rawResponse, validatedOnly } from './answer';
import { EnvelopeInterceptor } from './envelope.interceptor';

describe(EnvelopeInterceptor.name, () => {
  const sut = new EnvelopeInterceptor();

  function call(result: unknown): { rendered: Promise<unknown>; request: FastifyRequest; reply: jest.Mocked<Pick<FastifyReply, 'headers'>> } {
    const request = { id: 'req-1', answerCode: null } as FastifyRequest;
    const reply: jest.Mocked<Pick<FastifyReply, 'headers'>> & { request: FastifyRequest } = { request, headers: jest.fn() };
    const http: ReturnType<ExecutionContext['switchToHttp']> = {
      getRequest: <T>() => request as T,
      getResponse: <T>() => reply as T,
      getNext: <T>() => undefined as T,
    };
    const context: ExecutionContext = {
      switchToHttp: () => http,
      switchToRpc: jest.fn(),
      switchToWs: jest.fn(),
      getType: jest.fn(),
      getClass: jest.fn(),
      getHandler: jest.fn(),
      getArgs: jest.fn(),
      getArgByIndex: jest.fn(),
    };
    const next: CallHandler = { handle: () => of(result) };
    return { rendered: lastValueFrom(sut.intercept(context, next)), request, reply };
  }

  it("wraps a handler's data in the success envelope and records code 0 for the request line", async () => {
    const { rendered, request } = call({ account: { accountIdentifier: 'A1' } });
    await expect(rendered).resolves.toEqual({
      requestId: 'req-1',
      responseDetails: [expect.objectContaining({ code: 0, subCode: 0 })],
      account: { accountIdentifier: 'A1' },
    });
    expect(request.answerCode).toMatchObject({ code: 0, subCode: 0 });
  });

  it('answers a validate-only pass as the envelope alone', async () => {
    const { rendered } = call(validatedOnly());
    await expect(rendered).resolves.toEqual({ requestId: 'req-1', responseDetails: [expect.objectContaining({ code: 0 })] });
  });

  it('sends a RawResponse as it is, its headers on the reply', async () => {
    const { rendered, reply } = call(rawResponse('{"stored":true}', { 'idempotent-replayed': 'true' }));
    await expect(rendered).resolves.toBe('{"stored":true}');
    expect(reply.headers).toHaveBeenCalledWith({ 'idempotent-replayed': 'true' });
  });

  it('renders nothing for a handler that wrote its own reply (@Res) and returned nothing', async () => {
    const { rendered, request } = call(undefined);
    await expect(rendered).resolves.toBeUndefined();
    expect(request.answerCode).toBeNull();
  });
});
