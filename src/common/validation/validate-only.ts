import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { DomainError } from '../errors/domain-error';

export const VALIDATE_ONLY_DESCRIPTION =
  'true: run every check that needs no stored data (shape, characters, cross-field and program rules), take no lock, store nothing, ' +
  'use up no requestId (where the body has one), emit nothing; answer 200 with the single detail 0/0 "Valid", or the 400 the real call would give. ' +
  'Token, scope and tenancy apply as usual. false or absent: the real call. Any other value (yes, 1, TRUE, repeated): 400/100/5 naming validateOnly, ' +
  'and any other query parameter (validateonly, dryRun): 400/100/2 naming it, so that a dry run misspelt never runs for real.';

/** The request's query parameters (Fastify's parsed query; none is `{}`). */
function queryOf(context: ExecutionContext): Record<string, unknown> {
  return (context.switchToHttp().getRequest<{ query?: Record<string, unknown> }>().query ?? {}) as Record<string, unknown>;
}

/** Any query parameter but `allowed` is an unknown property: 400/100/2 naming it. */
function refuseOtherParameters(query: Record<string, unknown>, allowed: readonly string[]): void {
  for (const name in query) {
    if (!allowed.includes(name)) throw new DomainError('UNKNOWN_PROPERTY', { field: name, property: name });
  }
}

/**
 * `?validateOnly=true|false` (CONTRACT section 11); any other value is refused rather than read as a
 * real call, and so is any other query parameter (400/100/2, an unknown property): `?validateonly=true`
 * is a dry run misspelt, which must not run for real either.
 */
const ValidateOnlyQuery = createParamDecorator((_data: unknown, context: ExecutionContext): boolean => {
  const query = queryOf(context);
  refuseOtherParameters(query, ['validateOnly']);
  const value = query.validateOnly;
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new DomainError('INVALID_FIELD', { field: 'validateOnly', property: 'validateOnly' });
});

/**
 * A route's query parameters are those it names (`allowed`, none by default); any other is refused
 * (400/100/2 naming it), as the three validate-only routes refuse any but theirs: `?validateOnly=true`
 * sent to a write route without a dry run (adding an ITIN, a care action) must not run for real, and a
 * misspelt `?cursor=` must not page the event list from its start for ever. The parameter it
 * decorates is always undefined.
 */
export const NoQuery = createParamDecorator((allowed: readonly string[] | undefined, context: ExecutionContext): undefined => {
  refuseOtherParameters(queryOf(context), allowed ?? []);
  return undefined;
});

/** A read route's 400 (for ApiErrors' notes): it takes no query parameter. */
export const NO_QUERY = 'Any query parameter: a read takes none (400/100/2 naming it)';

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
