import { ClsStore } from 'nestjs-cls';
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
}

/** A partner's body requestId (1 to 64 characters); valid, it is the request's id (common/http/request-id.ts). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
