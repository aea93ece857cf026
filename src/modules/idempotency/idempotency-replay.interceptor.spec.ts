import { createSecretKey, randomBytes } from 'node:crypto';
import { CallHandler, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { lastValueFrom, of, Subject } from 'rxjs';
import type { DataSource } from 'typeorm';
import { RAW_RESPONSE } from '../../common/http/answer';
import { httpContextOf } from '../../common/testing/http-context';
import type { AppConfig } from '../../config/app-config';
import type { FieldCipher } from '../../infrastructure/crypto/field-cipher';
import type { DatabasePools } from '../../infrastructure/database/database-pools';
import type { KeyStore } from '../../infrastructure/crypto/key-store';
import { PayloadFingerprint } from '../../infrastructure/crypto/payload-fingerprint';
import { PartnerInFlight } from '../../infrastructure/database/partner-in-flight';
import { Metrics } from '../../infrastructure/metrics/metrics';
import { IDEMPOTENT_OPERATION, IdempotencyReplayInterceptor } from './idempotency-replay.interceptor';
import { IdempotencyRecord, IdempotencyStore } from './idempotency.store';
import { LookedUp, StoredLookup } from './stored-lookup';

const OPERATION = 'enrollment';
const TEXT = '{"requestId":"r-1","encryptedUserData":{"firstName":"José"}}';
const STORED = '{"requestId":"r-1","responseDetails":[{"code":0,"subCode":0,"description":"Success"}]}';

class SampleController {
  @SetMetadata(IDEMPOTENT_OPERATION, OPERATION)
  idempotent(): void {}

  plain(): void {}
}

interface SampleRequest {
  headers: Record<string, string>;
  query: Record<string, string>;
  params: Record<string, string>;
  body: unknown;
  rawBody?: Buffer;
  user?: { partner: { partnerId: string } };
}

function requestOf(overrides: Partial<SampleRequest> = {}): SampleRequest {
  return {
    headers: { 'content-type': 'application/json' },
    query: {},
    params: { programCode: 'sandbox' },
    body: JSON.parse(TEXT) as unknown,
    rawBody: Buffer.from(TEXT),
    user: { partner: { partnerId: 'acme' } },
    ...overrides,
  };
}

function contextOf(request: unknown, handler: () => void = SampleController.prototype.idempotent): ExecutionContext {
  return httpContextOf(SampleController, handler, request as object);
}

const STORED_RECORD: IdempotencyRecord = { fingerprint: 'h1:fingerprint', responseStatus: 200, responseBody: STORED, requestDigest: null };

/** What a route's `@LookedUp()` parameter receives for `request`, through Nest's own param-decorator factory. */
function lookedUpOf(request: object): StoredLookup | undefined {
  class Route {
    handle(@LookedUp() _lookedUp: unknown): void {}
  }
  const metadata = Reflect.getMetadata(ROUTE_ARGS_METADATA, Route, 'handle') as Record<
    string,
    { factory: (data: unknown, context: ExecutionContext) => unknown }
  >;
  const [entry] = Object.values(metadata);
  return entry?.factory(undefined, contextOf(request)) as StoredLookup | undefined;
}

describe(IdempotencyReplayInterceptor.name, () => {
  const digests = new PayloadFingerprint({ blindIndexKey: createSecretKey(randomBytes(32)) } as KeyStore);
  const digestOf = (text: string, contentType = 'application/json') => digests.ofBytes(OPERATION, { contentType, raw: Buffer.from(text) });
  let store: IdempotencyStore;
  let find: jest.SpyInstance<Promise<IdempotencyRecord | null>, Parameters<IdempotencyStore['find']>>;
  let next: jest.Mocked<CallHandler>;
  let sut: IdempotencyReplayInterceptor;
  let inFlight: PartnerInFlight;

  const record = (overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
    fingerprint: 'h1:fingerprint',
    responseStatus: 200,
    responseBody: STORED,
    requestDigest: digestOf(TEXT),
    ...overrides,
  });

  beforeEach(() => {
    store = new IdempotencyStore({} as DataSource, {} as AppConfig, {} as FieldCipher, {} as DatabasePools);
    find = jest.spyOn(store, 'find').mockResolvedValue(record());
    next = { handle: jest.fn(() => of('the whole way')) };
    inFlight = new PartnerInFlight({ env: { partnerMaxInFlight: 1 } } as AppConfig, new Metrics());
    sut = new IdempotencyReplayInterceptor(new Reflector(), store, digests, inFlight);
  });

  const answer = async (context: ExecutionContext) => lastValueFrom(await sut.intercept(context, next));

  it('answers a final answer stored for these very bytes from one read, without the rest of the pipeline', async () => {
    const replay = await answer(contextOf(requestOf()));
    expect(replay).toEqual({
      [RAW_RESPONSE]: true,
      body: STORED,
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotent-replayed': 'true' },
      // The code its stored text leads with, for the request's log line.
      code: { code: 0, subCode: 0 },
    });
    expect(find).toHaveBeenCalledTimes(1);
    expect(find).toHaveBeenCalledWith({ partnerId: 'acme', programCode: 'sandbox', requestId: 'r-1' });
    expect(next.handle).not.toHaveBeenCalled();
  });

  it.each<[string, Partial<IdempotencyRecord> | null]>([
    ['no record', null],
    ['a record without a final answer (held, incomplete, running)', { responseBody: null, responseStatus: null, requestDigest: null }],
    ['an answer stored before digests were kept', { requestDigest: null }],
    ['an answer stored for other bytes (same payload in another key order, or another payload)', { requestDigest: digestOf(`${TEXT} `) }],
    ['an answer stored for another Content-Type', { requestDigest: digestOf(TEXT, 'application/json; charset=utf-8') }],
  ])('goes on to the pipes and the runner for %s', async (_case, stored) => {
    find.mockResolvedValue(stored === null ? null : record(stored));
    expect(await answer(contextOf(requestOf()))).toBe('the whole way');
    expect(find).toHaveBeenCalledTimes(1);
    expect(next.handle).toHaveBeenCalledTimes(1);
  });

  it('goes on when the read fails: the call on its own way meets the failure and answers it', async () => {
    find.mockRejectedValue(new Error('connection terminated'));
    const request = requestOf();
    expect(await answer(contextOf(request))).toBe('the whole way');
    expect(next.handle).toHaveBeenCalledTimes(1);
    // Admitted, nothing read: the runner reads for itself and does not admit the call again.
    expect(lookedUpOf(request)).toEqual({});
  });

  it("admits the call under its partner's in-flight cap before its read, until the route has answered; with the cap full, reads nothing (CONTRACT sections 6, 12)", async () => {
    find.mockResolvedValue(null);
    const running = new Subject<string>();
    next.handle.mockReturnValueOnce(running);
    const first = lastValueFrom(await sut.intercept(contextOf(requestOf()), next));
    // The cap is 1: a second call of the partner takes no pooled connection for a read; it goes on
    // unread to the field rules (which come before any look-up), and the runner admits it or refuses it.
    const second = requestOf();
    expect(await answer(contextOf(second))).toBe('the whole way');
    expect(find).toHaveBeenCalledTimes(1);
    expect(lookedUpOf(second)).toBeUndefined();
    running.next('answered');
    running.complete();
    expect(await first).toBe('answered');
    expect(await answer(contextOf(requestOf()))).toBe('the whole way');
  });

  it('lets a replayed call go once its stored answer is sent', async () => {
    await answer(contextOf(requestOf()));
    expect(await answer(contextOf(requestOf()))).toMatchObject({ body: STORED });
  });

  it.each<[string, IdempotencyRecord | null]>([
    ['no record', null],
    ['a record it does not replay', { ...STORED_RECORD, requestDigest: null }],
  ])('hands what it read (%s) to the call runner with the request', async (_case, stored) => {
    find.mockResolvedValue(stored);
    const request = requestOf();
    expect(await answer(contextOf(request))).toBe('the whole way');
    expect(lookedUpOf(request)).toEqual({ record: stored });
  });

  it.each<[string, unknown, (() => void) | undefined]>([
    ['a route not marked @Idempotent()', requestOf(), SampleController.prototype.plain],
    ['?validateOnly=true (a dry run is never a replay)', requestOf({ query: { validateOnly: 'true' } }), undefined],
    ['any other query string', requestOf({ query: { validateOnly: 'false' } }), undefined],
    ['a body without requestId', requestOf({ body: { encryptedUserData: {} } }), undefined],
    ['a requestId that no call could have stored', requestOf({ body: { requestId: 'not valid!' } }), undefined],
    ['a body that is not an object', requestOf({ body: [TEXT] }), undefined],
    ['a request without its bytes', requestOf({ rawBody: undefined }), undefined],
    ['a request without a principal (a public route)', requestOf({ user: undefined }), undefined],
    ['a route without a program', requestOf({ params: {} }), undefined],
  ])('goes on without a read for %s', async (_case, request, handler) => {
    expect(await answer(contextOf(request, handler))).toBe('the whole way');
    expect(find).not.toHaveBeenCalled();
    expect(next.handle).toHaveBeenCalledTimes(1);
  });
});
