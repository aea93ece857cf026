import { applyDecorators, ArgumentMetadata, ValidationPipe, ValidationError } from '@nestjs/common';
import { ClassTransformOptions, plainToInstance, Type } from 'class-transformer';
import { IsObject, validate, ValidateNested, ValidatorOptions } from 'class-validator';
import { DomainError } from '../errors/domain-error';
import { prototypeKeyPath } from '../http/json-body';
import { ErrorKey } from '../errors/error-catalogue';

/**
 * DTO decorators name their catalogue row through class-validator's `context`:
 * `@MaxLength(35, fails('FIRST_NAME_LENGTH'))`. The pipe below turns the first failure of each
 * field into that row; a decorator without a row answers INVALID_FIELD, a missing value
 * REQUIRED_FIELD_MISSING, a property the DTO does not declare UNKNOWN_PROPERTY.
 */
export function fails(key: ErrorKey): { context: { error: ErrorKey }; message: string } {
  // The message is never shown; class-validator drops the context of a failure whose message is
  // empty, which is the default of ValidateBy validators without a defaultMessage.
  return { context: { error: key }, message: key };
}

/** A nested JSON object validated with its own DTO class (an array or scalar there is refused). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const NestedObject = (type: () => Function) => applyDecorators(IsObject(), Type(type), ValidateNested());

interface Failure {
  error: DomainError;
  rank: number;
}

/** Constraints that judge a value's JSON type: when one fails, what is inside the value is not what its DTO describes. */
const TYPE_CONSTRAINTS = ['isArray', 'isObject'];
/** Constraints that judge a scalar's JSON type (a field's rows judge only a value of its type). */
const VALUE_TYPE_CONSTRAINTS = ['isString', 'isBoolean', 'isNumber', 'isInt'];

function collect(errors: ValidationError[], parentPath: string, out: Failure[]): void {
  for (const error of errors) {
    const path = /^\d+$/.test(error.property) ? `${parentPath}[${error.property}]` : parentPath ? `${parentPath}.${error.property}` : error.property;
    const constraints = Object.keys(error.constraints ?? {});
    if (constraints.length > 0) {
      out.push(toFailure(error, constraints, path));
    }
    // An object sent where an array belongs (or the reverse) is one type error at its own path: its
    // members' failures would name paths that do not exist (`addresses.city` of an array).
    if (constraints.some((name) => TYPE_CONSTRAINTS.includes(name))) continue;
    collect(error.children ?? [], path, out);
  }
}

function toFailure(error: ValidationError, constraints: string[], path: string): Failure {
  if (constraints.includes('whitelistValidation')) {
    return { error: new DomainError('UNKNOWN_PROPERTY', { field: path, property: path }), rank: 0 };
  }
  // Decorators run bottom-up; the one declared first (top-most) governs, so read in reverse.
  const ordered = [...constraints].reverse();
  const keyed = ordered.find((name) => error.contexts?.[name]?.error);
  if (error.value === undefined || error.value === null) {
    const requiredKey = keyed && ['isDefined', 'isNotEmpty'].includes(keyed) ? (error.contexts?.[keyed]?.error as ErrorKey) : undefined;
    return { error: new DomainError(requiredKey ?? 'REQUIRED_FIELD_MISSING', { field: path, property: error.property }), rank: 1 };
  }
  // A value of another JSON type than its field's (a number for a name) is an invalid value or type
  // (CONTRACT section 9), not its field's length or character row, which judge text.
  if (constraints.some((name) => VALUE_TYPE_CONSTRAINTS.includes(name) && !error.contexts?.[name]?.error)) {
    return { error: new DomainError('INVALID_FIELD', { field: path, property: error.property }), rank: 2 };
  }
  if (keyed) {
    return { error: new DomainError(error.contexts?.[keyed]?.error as ErrorKey, { field: path, property: error.property }), rank: 2 };
  }
  return { error: new DomainError('INVALID_FIELD', { field: path, property: error.property }), rank: 2 };
}

/** CONTRACT section 2 (2026-11-25): at most this many field details, so a hostile body cannot make a huge answer. */
export const MAX_FIELD_DETAILS = 50;

export function validationErrorsToDomainError(errors: ValidationError[]): DomainError {
  const failures: Failure[] = [];
  collect(errors, '', failures);
  const sorted = failures.sort((a, b) => a.rank - b.rank).map((f) => f.error);
  const [first, ...more] = sorted.slice(0, MAX_FIELD_DETAILS);
  if (!first) return new DomainError('INVALID_FIELD', { property: 'body' });
  const left = sorted.slice(MAX_FIELD_DETAILS);
  // The rest as one detail with the code and subCode of the first left out, and no field.
  const summary = left.length > 0 ? [new DomainError(left[0].key, { description: `${left.length} more fields failed` })] : [];
  return new DomainError(first.key, { ...first.options, more: [...more, ...summary] });
}

const TRANSFORM_OPTIONS: ClassTransformOptions = { enableImplicitConversion: false };
/** As Nest's ValidationPipe passes them to class-validator (it adds `forbidUnknownValues: false`). */
const VALIDATOR_OPTIONS: ValidatorOptions = {
  forbidUnknownValues: false,
  whitelist: true,
  forbidNonWhitelisted: true,
  validationError: { target: false, value: true },
  stopAtFirstError: false,
};
const NOT_DTOS: readonly unknown[] = [String, Boolean, Number, Array, Object, Buffer, Date];

/** A key named like a prototype property anywhere in the body is an unknown property (400/100/2 naming it; prototypeKeyPath). */
export function refusePrototypeKeys(body: unknown): void {
  const path = prototypeKeyPath(body);
  if (path !== null) throw new DomainError('UNKNOWN_PROPERTY', { field: path, property: path });
}

/**
 * A JSON body checked against its DTO's field rules: refused as a whole unless it is an object
 * (no body counts as empty), else built into the DTO class (class-transformer) and validated
 * (class-validator), the failures mapped to the error catalogue. Returns the DTO instance.
 *
 * What Nest's ValidationPipe does for a body, without its three extra walks of the value: closing
 * sparse arrays' gaps and looking for binary values (parsed JSON has neither), and stripping keys
 * named like prototype properties, which the caller has refused (refusePrototypeKeys) before anything
 * reads the body.
 */
export async function validBodyInstance(dto: new () => object, body: unknown): Promise<object> {
  // No body at all counts as `{}`; JSON `null` is a body, and not an object.
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw new DomainError('INVALID_FIELD', { property: 'body', field: 'body' });
  }
  const instance = plainToInstance(dto, body ?? {}, TRANSFORM_OPTIONS);
  const errors = await validate(instance, VALIDATOR_OPTIONS);
  if (errors.length > 0) throw validationErrorsToDomainError(errors);
  return instance;
}

/**
 * The global pipe: a body with a DTO class goes through `validBodyInstance`, anything else through
 * Nest's pipe, which hands a body without a DTO class (the token endpoint's form, the console's
 * sign-in form) to its handler as parsed: the token endpoint answers a body that is not a form in
 * its own RFC 6749 format (400 invalid_request), as its OpenAPI documents.
 */
class BodyValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    if (metadata.type === 'body' && typeof metatype === 'function' && !NOT_DTOS.includes(metatype)) {
      refusePrototypeKeys(value);
      return validBodyInstance(metatype as new () => object, value);
    }
    return super.transform(value, metadata);
  }
}

/** The body pipe: the DTO's field rules, failures mapped to the error catalogue. */
export function createValidationPipe(): ValidationPipe {
  return new BodyValidationPipe({
    ...VALIDATOR_OPTIONS,
    transform: true,
    transformOptions: TRANSFORM_OPTIONS,
    exceptionFactory: (errors) => validationErrorsToDomainError(errors),
  });
}
