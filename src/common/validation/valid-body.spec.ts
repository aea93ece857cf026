import type { ModuleRef } from '@nestjs/core';
import { IsObject, IsString, Matches } from 'class-validator';
import { DomainError } from '../errors/domain-error';
import { BodyDecrypter, CrossFieldRules, ValidBodyPipe } from './valid-body';
import * as validation from './validation';

class SampleDto {
  @IsString()
  @Matches(/^\d{9}$/)
  ssn: string;
}

class SealedDto {
  @IsObject()
  encryptedUserData: Record<string, unknown>;
}

function pipeOf(decrypter: BodyDecrypter = { decryptFromPartner: () => Promise.reject(new Error('unused')) }): ValidBodyPipe {
  return new ValidBodyPipe({} as ModuleRef, decrypter);
}

/** What the pipe receives for a body. */
const parts = (body: unknown, principal?: unknown) => ({ body, programCode: undefined, principal: principal as never });
const asDto = (dto: unknown) => ({ type: 'custom' as const, data: { dto } as never });

describe(ValidBodyPipe.name, () => {
  afterEach(() => jest.restoreAllMocks());

  it('runs the field rules of every body, each time it comes, and passes the body on as plain data', async () => {
    const validate = jest.spyOn(validation, 'validBodyInstance');
    const sut = pipeOf();
    const sent = { ssn: '123456789' };
    expect(await sut.transform(parts(sent), asDto(SampleDto))).toBe(sent);
    expect(await sut.transform(parts({ ssn: '123456789' }), asDto(SampleDto))).toStrictEqual(sent);
    await expect(sut.transform(parts({ ssn: '12345' }), asDto(SampleDto))).rejects.toBeInstanceOf(DomainError);
    await expect(sut.transform(parts({ ssn: '123456789', extra: 1 }), asDto(SampleDto))).rejects.toMatchObject({ key: 'UNKNOWN_PROPERTY' });
    expect(validate).toHaveBeenCalledTimes(4);
  });

  it('refuses a key named like a prototype property at any depth as an unknown property naming it, before the field rules', async () => {
    const validate = jest.spyOn(validation, 'validBodyInstance');
    const polluted = JSON.parse('{"ssn":"123456789","constructor":1}') as unknown;
    await expect(pipeOf().transform(parts(polluted), asDto(SampleDto))).rejects.toMatchObject({
      key: 'UNKNOWN_PROPERTY',
      options: { property: 'constructor' },
    });
    const proto = JSON.parse('{"ssn":"1","__proto__":{"admin":true}}') as unknown;
    await expect(pipeOf().transform(parts(proto), asDto(SampleDto))).rejects.toMatchObject({ key: 'UNKNOWN_PROPERTY', options: { property: '__proto__' } });
    expect(validate).not.toHaveBeenCalled();
  });

  it("asks the route's rules which nodes may be sent before the field rules, and runs its cross-field rules after them", async () => {
    const order: string[] = [];
    const rules: CrossFieldRules<SampleDto, string> = {
      admit: (body) => {
        order.push('admit');
        if ((body as { banned?: unknown }).banned !== undefined) throw new DomainError('BUSINESS_DATA_NOT_ALLOWED');
      },
      check: () => {
        order.push('check');
        return 'plan';
      },
    };
    jest.spyOn(validation, 'validBodyInstance').mockImplementation(async (dto, body) => {
      order.push('fields');
      return body as object;
    });
    const moduleRef: Pick<ModuleRef, 'get'> = { get: jest.fn().mockReturnValue(rules) };
    const sut = new ValidBodyPipe(moduleRef as ModuleRef, { decryptFromPartner: () => Promise.reject(new Error('unused')) });
    const withRules = { type: 'custom' as const, data: { dto: SampleDto, rules: class Rules {} } as never };
    expect(await sut.transform(parts({ ssn: '123456789' }), withRules)).toBe('plan');
    expect(order).toEqual(['admit', 'fields', 'check']);
    order.length = 0;
    // A node that may not be sent is refused as such: the field rules inside it never run.
    await expect(sut.transform(parts({ ssn: 'x', banned: { a: 1 } }), withRules)).rejects.toMatchObject({ key: 'BUSINESS_DATA_NOT_ALLOWED' });
    expect(order).toEqual(['admit']);
  });

  it("opens a JWE only for a partner with encryption: anyone else's string fails the field rules", async () => {
    const decrypter: jest.Mocked<BodyDecrypter> = { decryptFromPartner: jest.fn().mockResolvedValue({ ssn: '123456789' }) };
    const sut = pipeOf(decrypter);
    const sealed = { encryptedUserData: 'eyJhbGciOiJSU0EtT0FFUC0yNTYifQ.sealed' };
    const partner = (encryption: boolean) => ({ partner: { partnerId: 'p', ...(encryption ? { encryption: {} } : {}) } });
    expect(await sut.transform(parts({ ...sealed }, partner(true)), asDto(SealedDto))).toEqual({ encryptedUserData: { ssn: '123456789' } });
    await expect(sut.transform(parts({ ...sealed }, partner(false)), asDto(SealedDto))).rejects.toBeInstanceOf(DomainError);
    expect(decrypter.decryptFromPartner).toHaveBeenCalledTimes(1);
  });
});
