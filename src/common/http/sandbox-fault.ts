import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors/domain-error';

export const SANDBOX_FAULT_HEADER = 'x-sandbox-fault';

/** The sandbox faults a request asks for (`X-Sandbox-Fault: billCycle, unavailable`). */
export function sandboxFaults(request: FastifyRequest): Set<string> {
  const raw = request.headers[SANDBOX_FAULT_HEADER];
  const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  return new Set(text.split(',').map((part) => part.trim()).filter(Boolean));
}

/** `X-Sandbox-Fault: unavailable` answers 503/503/2 before anything else happens (sandbox only). */
export function unavailableFaultHook(enabled: boolean) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (enabled && sandboxFaults(request).has('unavailable')) throw new DomainError('DEPENDENCY_UNAVAILABLE');
  };
}
