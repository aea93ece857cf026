import { createSecretKey, randomBytes } from 'node:crypto';
import type { ModuleRef } from '@nestjs/core';
import { IsString, Matches } from 'class-validator';
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

const parts = (body: unknown) => ({ body, programCode: undefined, principal: undefined });
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

  it('on a route that does not remember (not idempotent), validates the identical body every time and fingerprints nothing', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    const remembered = jest.spyOn(ValidationMemo.prototype, 'remember');
    const fingerprinted = jest.spyOn(PayloadFingerprint.prototype, 'of');
    try {
      await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto, null));
      await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto, null));
      expect(fieldRuleRuns()).toBe(2);
      expect(fingerprinted).not.toHaveBeenCalled();
      expect(remembered).toHaveBeenCalledWith(SampleDto, undefined);
    } finally {
      remembered.mockRestore();
      fingerprinted.mockRestore();
    }
  });

  it('remembers a body under its DTO: the same body for another DTO is validated by that DTO', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    await pipe.transform(parts({ ssn: '123456789' }), asDto(OtherDto));
    await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto));
    expect(fieldRuleRuns()).toBe(2);
  });

  it('knows the identical body with its keys in another order (the fingerprint is of the canonical form)', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    await pipe.transform(parts({ ssn: '123456789', name: 'a' }), asDto(TwoFieldDto));
    await pipe.transform(parts({ name: 'a', ssn: '123456789' }), asDto(TwoFieldDto));
    await pipe.transform(parts({ name: 'b', ssn: '123456789' }), asDto(TwoFieldDto));
    expect(fieldRuleRuns()).toBe(2);
  });

  it("fingerprints a body object once: the pipe and the call runner reuse the early replay's fingerprint of the same request's body", async () => {
    const memo = new ValidationMemo();
    const bodyFingerprints = fingerprints();
    const computed = jest.spyOn(bodyFingerprints, 'of');
    const body = JSON.parse('{"ssn":"123456789","constructor":1}') as unknown;
    prepareJson(body, WITHOUT_PROTOTYPE_KEYS);
    // The early replay's question, before the pipe: not known yet.
    const fingerprint = bodyFingerprints.ofBody(OPERATION, body);
    expect(memo.hasPassed(SampleDto, fingerprint)).toBe(false);
    await pipeOf(memo, bodyFingerprints).transform(parts(body), asDto(SampleDto));
    // What the runner asks for the same body is that same fingerprint, not computed again.
    expect(bodyFingerprints.ofBody(OPERATION, body)).toBe(fingerprint);
    expect(computed).toHaveBeenCalledTimes(1);
    // The pipe remembered it: the identical body, parsed again, has passed (one more computation, for the new object).
    expect(memo.hasPassed(SampleDto, bodyFingerprints.ofBody(OPERATION, JSON.parse('{"ssn":"123456789"}')))).toBe(true);
    expect(computed).toHaveBeenCalledTimes(2);
  });
});

describe('ValidationMemo', () => {
  it('has passed only what it was told passed, per DTO', () => {
    const memo = new ValidationMemo();
    const fingerprint = fingerprints().ofBody(OPERATION, { ssn: '123456789' });
    expect(memo.hasPassed(SampleDto, fingerprint)).toBe(false);
    memo.remember(SampleDto, fingerprint);
    expect(memo.hasPassed(SampleDto, fingerprint)).toBe(true);
    expect(memo.hasPassed(OtherDto, fingerprint)).toBe(false);
    expect(memo.hasPassed(SampleDto, undefined)).toBe(false);
    memo.remember(SampleDto, undefined);
    expect(memo.hasPassed(SampleDto, undefined)).toBe(false);
  });
});
