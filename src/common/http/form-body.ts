import { parse } from 'node:querystring';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors/domain-error';
import { isEncodedBody } from './content-encoding';

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/**
 * How a route takes an `application/x-www-form-urlencoded` body: `bytes`, as sent, for a route that
 * parses its form itself (the token endpoint's strict parser, once); `fields`, parsed into an object
 * (the care console's HTML forms). A route that does not declare one refuses a form with 415
 * (CONTRACT section 9: the API takes JSON).
 */
export type FormBody = 'bytes' | 'fields';

interface FormRouteConfig {
  formBody?: FormBody;
}

/** Declares that a route takes a form body, and how (Fastify route config, through Nest's documented decorator). */
export const AcceptsForm = (as: FormBody): MethodDecorator => RouteConfig({ formBody: as } satisfies FormRouteConfig);

/**
 * The application's one parser of form bodies (registered with Nest's `useBodyParser`, which keeps
 * the bytes as `rawBody` first): what the route declared with `@AcceptsForm`, or 415 (nothing for a
 * request that matches no route, which answers 404/404/0 whatever its body). A parsed form
 * with a `__proto__` field is refused as malformed (the console's forms have no unknown-property rule).
 */
export function parseFormBody(request: FastifyRequest, body: Buffer, done: (error: Error | null, parsed?: unknown) => void): void {
  if (request.is404) return done(null, undefined);
  const as = (request.routeOptions.config as FormRouteConfig | undefined)?.formBody;
  // The token route refuses an encoded form itself, in RFC 6749's words (token-form.ts).
  if (as === 'bytes') return done(null, body);
  if (body.length > 0 && isEncodedBody(request.headers)) return done(new DomainError('UNSUPPORTED_MEDIA_TYPE'));
  if (as !== 'fields') return done(new DomainError('UNSUPPORTED_MEDIA_TYPE'));
  const fields = parse(body.toString('utf8'));
  if (Object.prototype.hasOwnProperty.call(fields, '__proto__')) return done(new DomainError('MALFORMED_JSON'));
  done(null, fields);
}
