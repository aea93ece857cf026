import { ArgumentMetadata, createParamDecorator, ExecutionContext, Inject, Injectable, PipeTransform, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiBody } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../context/request-context';
import { DomainError } from '../errors/domain-error';
import { API_BODY, prepareJson } from '../http/json-body';
import { refusePrototypeKeys, validBodyInstance } from './validation';

/** Opens a partner's JWE compact string (implemented by the crypto module; common/ holds only the port). */
export interface BodyDecrypter {
  decryptFromPartner(compact: string): Promise<unknown>;
}
export const BODY_DECRYPTER = Symbol('BODY_DECRYPTER');

/** Rules of a body that span fields or need the program's configuration; they return what the use case works from. */
export interface CrossFieldRules<D, R> {
  /**
   * Whether each node may be sent at all, judged on the body as sent, before the field rules: a node
   * that may not be there is refused as such, not by the rules of the fields inside it.
   */
  admit?(body: unknown): void;
  check(context: { programCode: string | undefined }, dto: D): R;
}

interface BodyParts {
  body: unknown;
  programCode: string | undefined;
  principal: Principal | undefined;
}

/** What a route's `@ValidBody` says besides its DTO. */
export interface ValidBodySettings {
  /** Cross-field rules; the parameter receives what they return instead of the body. */
  rules?: Type<CrossFieldRules<never, unknown>>;
  /** The request body's examples in OpenAPI. */
  examples?: Record<string, { summary: string; value: unknown }>;
}

interface ValidBodyOptions {
  dto: Type<object>;
  rules?: Type<CrossFieldRules<never, unknown>>;
}

const RequestBodyParts = createParamDecorator((_options: ValidBodyOptions, context: ExecutionContext): BodyParts => {
  const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
  return {
    body: request.body,
    programCode: (request.params as Record<string, string | undefined>)?.programCode,
    principal: request.user,
  };
});

/**
 * The body of a route that carries `encryptedUserData`, made ready in one place and in this order,
 * before the handler (so before any look-up or lock, CONTRACT section 6): the JWE of an
 * encryption partner opened (and NFC-normalised) → the route's rules on which nodes may be sent (`admit`)
 * → DTO validation (unknown properties, field rules) → the route's cross-field rules, whose result
 * (e.g. the enrollment plan) is what the handler receives.
 *
 * What passes on is the validated body itself, as plain data typed by its DTO, not the DTO instance
 * class-transformer builds to run the field rules: DTO classes declare rules and types and carry no
 * behaviour (no method, accessor, initialiser or @Transform), so both hold the same data.
 */
@Injectable()
export class ValidBodyPipe implements PipeTransform<BodyParts> {
  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(BODY_DECRYPTER) private readonly decrypter: BodyDecrypter,
  ) {}

  async transform(parts: BodyParts, metadata: ArgumentMetadata): Promise<unknown> {
    const { dto, rules } = metadata.data as unknown as ValidBodyOptions;
    const body = await this.opened(parts);
    refusePrototypeKeys(body);
    const ruleSet = rules ? this.moduleRef.get(rules, { strict: false }) : undefined;
    ruleSet?.admit?.(body);
    // Throws the body's validation errors; the instance it returns holds the body's own data.
    await validBodyInstance(dto as new () => object, body);
    if (!ruleSet) return body;
    return ruleSet.check({ programCode: parts.programCode }, body as never);
  }

  /**
   * A partner configured for encryption may send `encryptedUserData` as a JWE compact string;
   * anyone else sending a string gets the ordinary validation error for a non-object.
   */
  private async opened({ body, principal }: BodyParts): Promise<unknown> {
    const sealed = body && typeof body === 'object' ? (body as { encryptedUserData?: unknown }).encryptedUserData : undefined;
    if (typeof sealed !== 'string' || !principal?.partner.encryption) return body;
    const unreadable = () => new DomainError('INVALID_FIELD', { field: 'encryptedUserData', property: 'encryptedUserData' });
    const plain = await this.decrypter.decryptFromPartner(sealed).catch(() => {
      throw unreadable();
    });
    if (!plain || typeof plain !== 'object' || Array.isArray(plain)) throw unreadable();
    // The body hook saw only the JWE string: the plaintext gets the same depth limit and NFC now.
    if (!prepareJson(plain, { ...API_BODY, maxDepth: API_BODY.maxDepth - 1 })) throw new DomainError('MALFORMED_JSON');
    return { ...(body as object), encryptedUserData: plain };
  }
}

/**
 * `@ValidBody(Dto)` or `@ValidBody(Dto, { rules, examples })`: the parameter receives the
 * validated body typed by its DTO, or what the rules return.
 */
export function ValidBody(dto: Type<object>, { rules, examples }: ValidBodySettings = {}): ParameterDecorator {
  return (target, key, index) => {
    RequestBodyParts({ dto, rules } satisfies ValidBodyOptions, ValidBodyPipe)(target, key, index);
    if (key !== undefined) ApiBody({ type: dto, examples })(target, key, Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor);
  };
}
