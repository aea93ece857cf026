import type { ModuleRef } from '@nestjs/core';
import { IsString, Matches } from 'class-validator';
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

function pipeWithSpy(): { pipe: ValidBodyPipe; fieldRuleRuns: () => number } {
  const pipe = new ValidBodyPipe({} as ModuleRef, { decryptFromPartner: () => Promise.reject(new Error('unused')) }, new ValidationMemo());
  const validate = jest.spyOn(validation, 'validBodyInstance');
  validate.mockClear();
  return { pipe, fieldRuleRuns: () => validate.mock.calls.length };
}

const parts = (body: unknown) => ({ body, programCode: undefined, principal: undefined });
const asDto = (dto: unknown, remember = true) => ({ type: 'custom' as const, data: { dto, remember } as never });

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

  it('on a route that does not remember (not idempotent), validates the identical body every time', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    const remembered = jest.spyOn(ValidationMemo.prototype, 'remember');
    const digested = jest.spyOn(ValidationMemo.prototype, 'keyOf');
    await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto, false));
    await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto, false));
    expect(fieldRuleRuns()).toBe(2);
    expect(digested).not.toHaveBeenCalled();
    expect(remembered).toHaveBeenCalledWith(undefined);
    remembered.mockRestore();
    digested.mockRestore();
  });

  it('remembers a body under its DTO: the same body for another DTO is validated by that DTO', async () => {
    const { pipe, fieldRuleRuns } = pipeWithSpy();
    await pipe.transform(parts({ ssn: '123456789' }), asDto(OtherDto));
    await pipe.transform(parts({ ssn: '123456789' }), asDto(SampleDto));
    expect(fieldRuleRuns()).toBe(2);
  });
});

describe('ValidationMemo', () => {
  it('keys only JSON objects, by DTO and body, and holds no part of the body', () => {
    const memo = new ValidationMemo();
    expect(memo.keyOf(SampleDto, ['x'])).toBeUndefined();
    expect(memo.keyOf(SampleDto, 'x')).toBeUndefined();
    const key = memo.keyOf(SampleDto, { ssn: '123456789' });
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain('123456789');
    expect(memo.keyOf(SampleDto, { ssn: '123456789' })).toBe(key);
    expect(memo.keyOf(OtherDto, { ssn: '123456789' })).not.toBe(key);
    expect(memo.keyOf(SampleDto, { ssn: '123456780' })).not.toBe(key);
    expect(new ValidationMemo().keyOf(SampleDto, { ssn: '123456789' })).not.toBe(key);
  });

  it("serialises a body object once: the body pipe reuses the early replay's digest of the same request's body", async () => {
    const memo = new ValidationMemo();
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const body = JSON.parse('{"ssn":"123456789","constructor":1}') as unknown;
      expect(memo.hasPassedBody(SampleDto, body)).toBe(false);
      const pipe = new ValidBodyPipe({} as ModuleRef, { decryptFromPartner: () => Promise.reject(new Error('unused')) }, memo);
      await pipe.transform(parts(body), asDto(SampleDto));
      expect(stringify).toHaveBeenCalledTimes(1);
      // The pipe remembered it under that digest: the identical body, parsed again, has passed.
      expect(memo.hasPassedBody(SampleDto, JSON.parse('{"ssn":"123456789"}'))).toBe(true);
      expect(stringify).toHaveBeenCalledTimes(2);
    } finally {
      stringify.mockRestore();
    }
  });

  it('has passed only what it was told passed', () => {
    const memo = new ValidationMemo();
    const key = memo.keyOf(SampleDto, { ssn: '123456789' });
    expect(memo.hasPassed(key)).toBe(false);
    memo.remember(key);
    expect(memo.hasPassed(key)).toBe(true);
    expect(memo.hasPassed(undefined)).toBe(false);
  });
});
