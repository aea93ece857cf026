import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../infrastructure/time/clock';
import { verifyCsrf } from './console-http';
import { Staff } from './staff';

/** No signed-in staff member, or their session ended (idle, or past its absolute lifetime): the filter sends them to the sign-in page. */
export class SignInRequired extends Error {
  constructor(readonly ended?: 'idle' | 'lifetime') {
    super('sign-in required');
  }
}

/** Production without an identity provider does not serve the console at all (CONTRACT section 14). */
export class ConsoleNotServed extends Error {}

/** What every console route checks first: the console is served, who is signed in, their session's age and idle time, and CSRF on posts. */
@Injectable()
export class ConsoleGate {
  constructor(
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly clock: Clock,
  ) {}

  get providerConfigured(): boolean {
    return this.config.env.careConsole.oauth !== null;
  }

  /** The sandbox sign-in page exists only in sandbox mode with no provider configured. */
  get sandboxSignIn(): boolean {
    return this.config.isSandbox && !this.providerConfigured;
  }

  served(): void {
    if (!this.providerConfigured && !this.config.isSandbox) throw new ConsoleNotServed();
  }

  /**
   * The signed-in staff member. The session's idle time is checked here as well as by the store's
   * expiry; its absolute lifetime only here (a session without a sign-in time has none left).
   */
  staff(request: FastifyRequest): Staff {
    this.served();
    const session = request.session;
    const now = this.clock.now().getTime();
    if (!session?.staff) throw new SignInRequired();
    const { sessionIdleMinutes, sessionMaxHours } = this.config.env.careConsole;
    const ended =
      session.signedInAt === undefined || now - session.signedInAt >= sessionMaxHours * 3_600_000
        ? 'lifetime'
        : session.lastSeen !== undefined && now - session.lastSeen > sessionIdleMinutes * 60_000
          ? 'idle'
          : undefined;
    if (ended) {
      delete session.staff;
      throw new SignInRequired(ended);
    }
    session.lastSeen = now;
    return session.staff;
  }

  /** Signs the staff member in on a new session id (no fixation); the pre-sign-in session and its CSRF secret are dropped. */
  async signIn(request: FastifyRequest, staff: Staff): Promise<void> {
    await request.session.regenerate();
    const now = this.clock.now().getTime();
    request.session.staff = staff;
    request.session.signedInAt = now;
    request.session.lastSeen = now;
  }

  async csrf(request: FastifyRequest): Promise<void> {
    await verifyCsrf(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), request);
  }

  token(reply: FastifyReply): string {
    return reply.generateCsrf();
  }
}
