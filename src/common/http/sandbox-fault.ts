import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseSandboxFaults } from '../context/sandbox-faults';
import { DomainError } from '../errors/domain-error';

export const SANDBOX_FAULT_HEADER = 'x-sandbox-fault';


/** `X-Sandbox-Fault: unavailable` answers 503/503/2 before anything else happens (sandbox only). */
export function unavailableFaultHook(enabled: boolean) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (enabled && parseSandboxFaults(request.headers[SANDBOX_FAULT_HEADER]).includes('unavailable')) throw new DomainError('DEPENDENCY_UNAVAILABLE');
  };
}
