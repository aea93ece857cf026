import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ClsService, ClsServiceManager } from 'nestjs-cls';
import { AppConfig } from '../../config/app-config';
import { DomainError } from '../errors/domain-error';

export const SANDBOX_FAULTS = 'sandbox:faults';
export const SANDBOX_FAULT_HEADER = 'x-sandbox-fault';
/** The header as documents and error details name it. */
export const SANDBOX_FAULT_HEADER_NAME = 'X-Sandbox-Fault';

/** Parses `X-Sandbox-Fault: billCycle, after:accountWritten` into its parts. */
export function parseSandboxFaults(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * Test controls of the sandbox (CONTRACT section 10), read by services without touching the
 * request: `billCycle` fails the bill-cycle step; `after:<recoveryPoint>` interrupts the call
 * right after that point commits (answered 503/503/2, as a crash or outage would leave it), so
 * tests can prove that the identical retry resumes. Production ignores them all.
 */
@Injectable()
export class SandboxFaults {
  constructor(
    private readonly cls: ClsService,
    private readonly config: AppConfig,
  ) {}

  has(fault: string): boolean {
    return this.faults().includes(fault);
  }

  /** True when this call asks to be interrupted after some recovery point (so it runs phase by phase). */
  interrupts(): boolean {
    return this.faults().some((fault) => fault.startsWith('after:'));
  }

  /** This request's faults; none outside the sandbox or outside a request. */
  private faults(): readonly string[] {
    if (!this.config.isSandbox) return [];
    return requestFaults(this.cls);
  }

  /** Call right after a recovery point's transaction committed. */
  interruptAfter(point: string): void {
    if (this.has(`after:${point}`)) throw new DomainError('DEPENDENCY_UNAVAILABLE');
  }
}

/** The faults the request-scope hook parsed into this request's store; none outside a request. */
function requestFaults(cls: ClsService): readonly string[] {
  return (cls.isActive() ? cls.get<readonly string[] | undefined>(SANDBOX_FAULTS) : undefined) ?? [];
}

/** Whether the request asked for `X-Sandbox-Fault: unavailable` (never outside the sandbox: the faults are read there only). */
export function unavailableRequested(): boolean {
  return requestFaults(ClsServiceManager.getClsService()).includes(UNAVAILABLE_FAULT);
}

/** The fault every route of the sandbox knows; the others are named by the modules that read them. */
export const UNAVAILABLE_FAULT = 'unavailable';

/**
 * The sandbox's fault header, checked in a preHandler hook (sandbox only), where the body's
 * requestId is known for the answer:
 * - `X-Sandbox-Fault: unavailable` answers 503/503/2 before anything else happens (CONTRACT section
 *   10); a failure before the hook (a body that is not JSON, too large, of another type; an unknown
 *   route) is answered 503 too, by the error path (exception.filter.ts);
 * - on a route of the partner API (`/v1/...`, its JSON envelope), a fault that is not `unavailable`
 *   nor one of `known` answers 400/100/5 naming the header and the known faults: a misspelt fault
 *   would otherwise let the call run for real. Elsewhere (the token endpoint's RFC 6749 answers, the
 *   health checks, the console, an unknown route's 404) the header means nothing but `unavailable`.
 */
export function sandboxFaultHook(known: readonly string[]): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  const names = [UNAVAILABLE_FAULT, ...known];
  const description = `X-Sandbox-Fault has an invalid value; the sandbox knows ${names.join(', ')}`;
  return (request, _reply, done) => {
    if (unavailableRequested()) return done(new DomainError('DEPENDENCY_UNAVAILABLE'));
    if (!request.routeOptions.url?.startsWith('/v1/') || request.is404) return done();
    const unknown = requestFaults(ClsServiceManager.getClsService()).some((fault) => !names.includes(fault));
    done(unknown ? new DomainError('INVALID_FIELD', { field: SANDBOX_FAULT_HEADER_NAME, property: SANDBOX_FAULT_HEADER_NAME, description }) : undefined);
  };
}
