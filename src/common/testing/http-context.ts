import type { ExecutionContext } from '@nestjs/common';
import type { PartnerConfig } from '../../config/service-config';
import type { Principal } from '../context/request-context';

/** Unit specs' sample partner `acme` on the sandbox program, with the enrollments scope. */
export const SAMPLE_PARTNER: PartnerConfig = {
  partnerId: 'acme',
  clientId: 'acme',
  clientSecrets: [],
  clientSecretHashes: [],
  programs: ['sandbox'],
  scopes: ['enrollments'],
  encryption: null,
  webhook: null,
};

export const SAMPLE_PRINCIPAL: Principal = { partner: SAMPLE_PARTNER, clientId: 'acme', scopes: ['enrollments'] };

/** The ExecutionContext Nest hands a guard or interceptor for an HTTP call of `handler` on `controller` (unit specs). */
export function httpContextOf(controller: abstract new (...args: never[]) => unknown, handler: () => void, request: object): ExecutionContext {
  const http: ReturnType<ExecutionContext['switchToHttp']> = {
    getRequest: <T>() => request as T,
    getResponse: <T>() => ({}) as T,
    getNext: <T>() => (() => undefined) as T,
  };
  return {
    getClass: <T>() => controller as T,
    getHandler: () => handler,
    getArgs: <T extends unknown[]>() => [request] as T,
    getArgByIndex: <T>() => request as T,
    getType: <T extends string>() => 'http' as T,
    switchToHttp: () => http,
    switchToRpc: () => {
      throw new Error('http only');
    },
    switchToWs: () => {
      throw new Error('http only');
    },
  };
}
