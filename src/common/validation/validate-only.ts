import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { DomainError } from '../errors/domain-error';

export const VALIDATE_ONLY_DESCRIPTION =
  'true: run every check that needs no stored data (shape, characters, cross-field and program rules), take no lock, store nothing, ' +
  'keep the requestId unused, emit nothing; answer 200 with the single detail 0/0 "Valid", or the 400 the real call would give. ' +
  'Token, scope and tenancy apply as usual. false or absent: the real call. Any other value (yes, 1, TRUE, repeated): 400/100/5 naming validateOnly, ' +
  'and any other query parameter (validateonly, dryRun): 400/100/2 naming it, so that a dry run misspelt never runs for real.';

/**
 * `?validateOnly=true|false` (CONTRACT section 11); any other value is refused rather than read as a
 * real call, and so is any other query parameter (400/100/2, an unknown property): `?validateonly=true`
 * is a dry run misspelt, which must not run for real either.
 */
const ValidateOnlyQuery = createParamDecorator((_data: unknown, context: ExecutionContext): boolean => {
  const query = (context.switchToHttp().getRequest<{ query?: Record<string, unknown> }>().query ?? {}) as Record<string, unknown>;
  for (const name in query) {
    if (name !== 'validateOnly') throw new DomainError('UNKNOWN_PROPERTY', { field: name, property: name });
  }
  const value = query.validateOnly;
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new DomainError('INVALID_FIELD', { field: 'validateOnly', property: 'validateOnly' });
});

/** The parameter is true for a validate-only call; documents the query parameter. */
export function ValidateOnly(): ParameterDecorator {
  return (target, key, index) => {
    ValidateOnlyQuery()(target, key, index);
    if (key !== undefined) {
      ApiQuery({ name: 'validateOnly', required: false, enum: ['true', 'false'], description: VALIDATE_ONLY_DESCRIPTION })(
        target,
        key,
        Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor,
      );
    }
  };
}
