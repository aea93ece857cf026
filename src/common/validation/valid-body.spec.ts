import { createSecretKey, randomBytes } from 'node:crypto';
import type { ModuleRef } from '@nestjs/core';
import { IsObject, IsString, Matches } from 'class-validator';
import type { KeyStore } from '../../infrastructure/crypto/key-store';
import { PayloadFingerprint } from '../../infrastructure/crypto/payload-fingerprint';
import { DomainError } from '../errors/domain-error';
import { prepareJson, WITHOUT_PROTOTYPE_KEYS } from '../http/json-body';
import { ValidBodyPipe } from './valid-body';
import * as validation from './validation';
import { ValidationMemo } from './validation-memo';

class SampleDto {
  @IsString()
  @Matches(/^\d{9}$/)
  ssn: string;
}

class OtherDto {
  @IsString()
  ssn: string;
}

class TwoFieldDto {
  @IsString()
  ssn: string;

  @IsString()
  name: string;
}

class SealedDto {
  @IsObject()
  encryptedUserData: Record<string, unknown>;
}

const OPERATION = 'sample';

function fingerprints(): PayloadFingerprint {
  return new PayloadFingerprint({ blindIndexKey: createSecretKey(randomBytes(32)) } as unknown as KeyStore);
}

function pipeOf(memo = new ValidationMemo(), bodyFingerprints = fingerprints()): ValidBodyPipe {
  return new ValidBodyPipe({} as ModuleRef, { decryptFromPartner: () => Promise.reject(new Error('unused')) }, bodyFingerprints, memo);
}

function pipeWithSpy(): { pipe: ValidBodyPipe; fieldRuleRuns: () => number } {
  const pipe = pipeOf();
  const validate = jest.spyOn(validation, 'validBodyInstance');
  validate.mockClear();
  return { pipe, fieldRuleRuns: () => validate.mock.calls.length };
}

/** What the pipe receives for a body that arrived as `raw` (its JSON text unless given) under `contentType`. */
const parts = (body: unknown, raw: string | null = JSON.stringify(body), contentType = 'application/json') => ({
  body,
  arrived: { contentType, raw: raw === null ? undefined : Buffer.from(raw) },
  programCode: undefined,
  principal: undefined,
});
/** The pipe's metadata for a DTO: remembered under OPERATION, or not at all (null). */
const asDto = (dto: unknown, remember: string | null = OPERATION) => ({ type: 'custom' as const, data: { dto, remember: remember ?? undefined } as never });

describe('ValidBodyPipe and its validation memo', () => {
  it('runs the field rules of a new body, and not again for the identical body; both times the handler gets the body as plain data', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    const sent = { ssn: '123456789' };
    const first = await pipe.transform(parts(sent), asDto(SampleDto));
    const again = await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto));
    expect(fieldRuleRuns()).toBe(1);
    expect(first).toBe(sent);
    expect(Object.getPrototypeOf(again)).toBe(Object.prototype);
    expect(again).toStrictEqual(first);
  });

  it('drops keys named like prototype properties at any depth, remembered or not, as the validation pipe drops them', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    const polluted = () => JSON.parse('{"ssn":"123456789","constructor":1,"prototype":{"a":1},"__proto__":{"admin":true}}') as unknown;
    const first = await pipe.transform(parts(polluted()), asDto(SampleDto));
    const again = await pipe.transform(parts(polluted()), asDto(SampleDto));
    expect(fieldRuleRuns()).toBe(1);
    expect(first).toStrictEqual({ ssn: '123456789' });
    expect(again).toStrictEqual({ ssn: '123456789' });
    const nested = JSON.parse('{"a":[{"constructor":{"prototype":1},"b":2}],"c":{"__proto__":{"x":1},"d":3}}') as unknown;
    prepareJson(nested, WITHOUT_PROTOTYPE_KEYS);
    expect(nested).toStrictEqual({ a: [{ b: 2 }], c: { d: 3 } });
  });

  it('validates every different body, and every failing one each time it comes (failures are not remembered)', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto));
    await expect(pipe.transform(parts({ ssn: '12345' }), asDto(SampleDto))).rejects.toBeInstanceOf(DomainError);
    await expect(pipe.transform(parts({ ssn: '12345' }), asDto(SampleDto))).rejects.toBeInstanceOf(DomainError);
    await expect(pipe.transform(parts({ ssn: '123456789', extra: 1 }), asDto(SampleDto))).rejects.toMatchObject({ key: 'UNKNOWN_PROPERTY' });
    expect(fieldRuleRuns()).toBe(4);
  });

  it('on a route that does not remember (not idempotent), validates the identical body every time and neither digests nor fingerprints it', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    const spies = [
      jest.spyOn(ValidationMemo.prototype, 'remember'),
      jest.spyOn(ValidationMemo.prototype, 'digestOf'),
      jest.spyOn(PayloadFingerprint.prototype, 'of'),
    ];
    try {
      await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto, null));
      await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto, null));
      expect(fieldRuleRuns()).toBe(2);
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('remembers a body under its DTO: the same body for another DTO is validated by that DTO', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    await pipe.transform(parts({ ssn: '123456789' }), asDto(OtherDto));
    await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto));
    expect(fieldRuleRuns()).toBe(2);
  });

  it('knows a body by its bytes and Content-Type: other bytes for the same data, another Content-Type or no bytes are validated again', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    await pipe.transform(parts({ ssn: '123456789', name: 'a' }), asDto(TwoFieldDto));
    await pipe.transform(parts({ ssn: '123456789', name: 'a' }), asDto(TwoFieldDto));
    expect(fieldRuleRuns()).toBe(1);
    await pipe.transform(parts({ name: 'a', ssn: '123456789' }), asDto(TwoFieldDto));
    await pipe.transform(parts({ ssn: '123456789', name: 'a' }, '{ "ssn": "123456789", "name": "a" }'), asDto(TwoFieldDto));
    await pipe.transform(parts({ ssn: '123456789', name: 'a' }, undefined, 'application/json; charset=utf-8'), asDto(TwoFieldDto));
    await pipe.transform(parts({ ssn: '123456789', name: 'a' }, null), asDto(TwoFieldDto));
    await pipe.transform(parts({ ssn: '123456789', name: 'a' }, null), asDto(TwoFieldDto));
    expect(fieldRuleRuns()).toBe(6);
  });

  it("remembers the body's payload fingerprint, the one the call runner then uses, computed once for both", async () => {
    const memo = new ValidationMemo();
    const bodyFingerprints = fingerprints();
    const computed = jest.spyOn(bodyFingerprints, 'of');
    const sent = parts(JSON.parse('{"ssn":"123456789","constructor":1}'), '{"ssn":"123456789","constructor":1}');
    const digest = memo.digestOf(SampleDto, sent.arrived);
    expect(memo.fingerprintOf(digest)).toBeUndefined();
    await pipeOf(memo, bodyFingerprints).transform(sent, asDto(SampleDto));
    // The runner asks for the same body's fingerprint: the one remembered, not computed again.
    const fingerprint = bodyFingerprints.ofBody(OPERATION, sent.body);
    expect(computed).toHaveBeenCalledTimes(1);
    // Of the body as the pipe passed it on (prototype-named keys dropped), and known from the bytes alone.
    expect(fingerprint).toBe(bodyFingerprints.of(OPERATION, { ssn: '123456789' }));
    expect(memo.fingerprintOf(memo.digestOf(SampleDto, { contentType: 'application/json', raw: Buffer.from('{"ssn":"123456789","constructor":1}') }))).toBe(
      fingerprint,
    );
  });
});

describe('ValidBodyPipe, the memo and JWE bodies', () => {
  it("never lets a partner without encryption pass on the memo entry of another partner's JWE bytes", async () => {
    const memo = new ValidationMemo();
    const pipe = new ValidBodyPipe({} as ModuleRef, { decryptFromPartner: () => Promise.resolve({ ssn: '123456789' }) }, fingerprints(), memo);
    const sealed = '{"encryptedUserData":"eyJhbGciOiJSU0EtT0FFUC0yNTYifQ.sealed"}';
    const sent = (encryption: boolean) => ({
      ...parts(JSON.parse(sealed), sealed),
      principal: { partner: { partnerId: 'p', ...(encryption ? { encryption: {} } : {}) } } as never,
    });
    // Opened for a partner with encryption: it passes, and is remembered.
    expect(await pipe.transform(sent(true), asDto(SealedDto))).toEqual({ encryptedUserData: { ssn: '123456789' } });
    // The same bytes from a partner without encryption stay a string: refused, not passed on by the memo.
    await expect(pipe.transform(sent(false), asDto(SealedDto))).rejects.toBeInstanceOf(DomainError);
    expect(memo.digestOf(SealedDto, sent(true).arrived, true)).not.toBe(memo.digestOf(SealedDto, sent(true).arrived, false));
  });
});

describe('ValidationMemo', () => {
  const arrived = (text: string, contentType = 'application/json') => ({ contentType, raw: Buffer.from(text) });

  it('digests a body by DTO, Content-Type and bytes under a key of its own, holding no part of it', () => {
    const memo = new ValidationMemo();
    const digest = memo.digestOf(SampleDto, arrived('{"ssn":"123456789"}'));
    expect(digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(digest).not.toContain('123456789');
    expect(memo.digestOf(SampleDto, arrived('{"ssn":"123456789"}'))).toBe(digest);
    expect(memo.digestOf(OtherDto, arrived('{"ssn":"123456789"}'))).not.toBe(digest);
    expect(memo.digestOf(SampleDto, arrived('{"ssn":"123456789"}', 'application/x-www-form-urlencoded'))).not.toBe(digest);
    expect(memo.digestOf(SampleDto, arrived('{"ssn":"123456780"}'))).not.toBe(digest);
    expect(new ValidationMemo().digestOf(SampleDto, arrived('{"ssn":"123456789"}'))).not.toBe(digest);
    expect(memo.digestOf(SampleDto, { contentType: 'application/json', raw: undefined })).toBeUndefined();
  });

  it('knows only what it was told passed, with its fingerprint', () => {
    const memo = new ValidationMemo();
    const digest = memo.digestOf(SampleDto, arrived('{"ssn":"123456789"}'));
    expect(memo.fingerprintOf(digest)).toBeUndefined();
    memo.remember(digest, 'h1:fingerprint');
    expect(memo.fingerprintOf(digest)).toBe('h1:fingerprint');
    expect(memo.fingerprintOf(undefined)).toBeUndefined();
    memo.remember(undefined, 'h1:other');
    expect(memo.fingerprintOf(undefined)).toBeUndefined();
  });
});
