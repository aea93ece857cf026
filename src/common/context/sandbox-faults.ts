import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ClsService, ClsServiceManager } from 'nestjs-cls';
import { AppConfig } from '../../config/app-config';
import { DomainError } from '../errors/domain-error';

export const SANDBOX_FAULTS = 'sandbox:faults';
export const SANDBOX_FAULT_HEADER = 'x-sandbox-fault';

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
  return requestFaults(ClsServiceManager.getClsService()).includes('unavailable');
}

/**
 * `X-Sandbox-Fault: unavailable` answers 503/503/2 before anything else happens (CONTRACT section
 * 10): a preHandler hook (sandbox only), where the body's requestId is known for the answer; a
 * failure before it (a body that is not JSON, too large, of another type; an unknown route) is
 * answered 503 too, by the error path (exception.filter.ts).
 */
export function unavailableFaultHook(_request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  done(unavailableRequested() ? new DomainError('DEPENDENCY_UNAVAILABLE') : undefined);
}
