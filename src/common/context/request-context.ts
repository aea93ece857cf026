import { ClsServiceManager, ClsStore } from 'nestjs-cls';
import { SANDBOX_FAULTS } from './sandbox-faults';
import type { PartnerConfig, Scope } from '../../config/service-config';

/** Who is calling: resolved from the bearer token by the auth guard. */
export interface Principal {
  readonly partner: PartnerConfig;
  readonly clientId: string;
  readonly scopes: readonly Scope[];
}

/** What the request carries through the call (nestjs-cls, AsyncLocalStorage underneath). */
export interface RequestContextStore extends ClsStore {
  requestId: string;
  principal?: Principal;
  /** The sandbox test controls of X-Sandbox-Fault (none outside the sandbox). */
  [SANDBOX_FAULTS]?: readonly string[];
  /** The program a call resolved without naming it (noteCallProgram). */
  programCode?: string;
}

/**
 * The program a call works in when neither its path nor its body names it (an ITIN call's or a care
 * action's account, a webhook test's default program), once resolved and admitted: the request line
 * names it (CONTRACT section 16). Nothing outside a request.
 */
export function noteCallProgram(programCode: string): void {
  const cls = ClsServiceManager.getClsService<RequestContextStore>();
  if (cls.isActive()) cls.set('programCode', programCode);
}

const REQUEST_STORE = Symbol('request-context-store');

/**
 * Keeps the request's context store on the request itself, beside the async context it is entered
 * in: what reads a request's facts from its request object (its answer's X-Request-Id, its log line
 * at onResponse) gets that request's, even when requests pipelined on one connection share the
 * connection's async context, where the store entered last would answer for all of them.
 */
export function keepStore(request: object, store: RequestContextStore): void {
  (request as { [REQUEST_STORE]?: RequestContextStore })[REQUEST_STORE] = store;
}

/** The context store of `request` (keepStore), or undefined before its first hook ran. */
export function storeOf(request: object): RequestContextStore | undefined {
  return (request as { [REQUEST_STORE]?: RequestContextStore })[REQUEST_STORE];
}

/** A partner's body requestId (1 to 64 characters); valid, it is the request's id (common/http/request-id.ts). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
