import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { verifyCsrf } from './console-http';
import { Staff } from './staff';

/** No signed-in staff member (or the session went idle): the filter sends them to the sign-in page. */
export class SignInRequired extends Error {
  constructor(readonly idle = false) {
    super('sign-in required');
  }
}

/** Production without an identity provider does not serve the console at all (CONTRACT section 14). */
export class ConsoleNotServed extends Error {}

/** What every console route checks first: the console is served, who is signed in, their idle time, and CSRF on posts. */
@Injectable()
export class ConsoleGate {
  constructor(
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
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

  /** The signed-in staff member; the session's idle time is checked here as well as by the store's expiry. */
  staff(request: FastifyRequest): Staff {
    this.served();
    const session = request.session;
    const now = Date.now();
    if (!session?.staff) throw new SignInRequired();
    if (session.lastSeen !== undefined && now - session.lastSeen > this.config.env.careConsole.sessionIdleMinutes * 60_000) {
      delete session.staff;
      throw new SignInRequired(true);
    }
    session.lastSeen = now;
    return session.staff;
  }

  async csrf(request: FastifyRequest): Promise<void> {
    await verifyCsrf(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), request);
  }

  token(reply: FastifyReply): string {
    return reply.generateCsrf();
  }
}
