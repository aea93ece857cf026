import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../infrastructure/time/clock';

export const LOGIN_COOKIE = 'care_login';
export const LOGIN_CALLBACK_PATH = '/care/auth/callback';
/** Long enough to sign in at the provider, short enough that a stolen cookie is soon useless. */
const LOGIN_LIFETIME_MS = 10 * 60_000;

/** One sign-in in progress: the `state` and nonce sent to the provider and the PKCE verifier kept back. */
export interface LoginState {
  state: string;
  nonce: string;
  verifier: string;
  /** Epoch ms: the cookie's own Max-Age is the browser's to honour, this one is checked here. */
  expiresAt: number;
}

/**
 * The sign-in in progress lives in a short-lived signed cookie of the browser that started it
 * (@fastify/cookie's signed cookies), not in a database session: an anonymous visit to
 * /care/auth/login writes nothing. The cookie binds the provider's answer to this browser (no
 * login CSRF) and is cleared when the answer comes back, whatever it was.
 */
@Injectable()
export class LoginStateCookie {
  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** A fresh state, nonce and PKCE verifier, set as the cookie on `reply`. */
  issue(reply: FastifyReply): LoginState {
    const login: LoginState = { state: random(), nonce: random(), verifier: random(), expiresAt: this.clock.now().getTime() + LOGIN_LIFETIME_MS };
    void reply.setCookie(LOGIN_COOKIE, Buffer.from(JSON.stringify(login)).toString('base64url'), {
      ...this.attributes(),
      signed: true,
      maxAge: LOGIN_LIFETIME_MS / 1000,
    });
    return login;
  }

  /** The sign-in this browser started, when its cookie is intact, unexpired, and `state` is the one it was given. */
  match(request: FastifyRequest, state: unknown): LoginState | null {
    const raw = request.cookies[LOGIN_COOKIE];
    if (!raw || typeof state !== 'string') return null;
    const unsigned = request.unsignCookie(raw);
    if (!unsigned.valid || unsigned.value === null) return null;
    const login = parse(unsigned.value);
    if (!login || login.expiresAt <= this.clock.now().getTime() || !same(login.state, state)) return null;
    return login;
  }

  clear(reply: FastifyReply): void {
    void reply.clearCookie(LOGIN_COOKIE, this.attributes());
  }

  private attributes() {
    return { path: '/care/auth', httpOnly: true, sameSite: 'lax' as const, secure: this.config.env.publicUrl.startsWith('https://') };
  }
}

export const SIGN_IN_FORM_COOKIE = 'care_signin';
const SIGN_IN_FORM_PATH = '/care/sign-in';
/** How long a sandbox sign-in page's form may wait before it is posted. */
const SIGN_IN_FORM_LIFETIME_MS = 30 * 60_000;

/** The sandbox sign-in form was posted without the token its page was given (or it expired). */
export class SignInFormExpired extends Error {
  constructor() {
    super('sign-in form token missing or invalid');
  }
}

/**
 * The sandbox sign-in form's CSRF token, in a short-lived signed cookie of the browser that loaded the
 * page and in the form (double submit), not in a database session: an anonymous visit to the sign-in
 * page writes nothing, as /care/auth/login does not. A form posted from elsewhere lacks the cookie or
 * its token (SameSite=Lax keeps the cookie off cross-site posts; the signature keeps it from being
 * forged), so a visitor cannot be signed in to someone else's care client (no login CSRF).
 */
@Injectable()
export class SignInFormCookie {
  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** A fresh token for the page's form, set as the cookie on `reply`. */
  issue(reply: FastifyReply): string {
    const token = `${this.clock.now().getTime() + SIGN_IN_FORM_LIFETIME_MS}.${random()}`;
    void reply.setCookie(SIGN_IN_FORM_COOKIE, token, {
      path: SIGN_IN_FORM_PATH,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.config.env.publicUrl.startsWith('https://'),
      signed: true,
      maxAge: SIGN_IN_FORM_LIFETIME_MS / 1000,
    });
    return token;
  }

  /** Throws SignInFormExpired unless `sent` is the unexpired token of this browser's cookie. */
  check(request: FastifyRequest, sent: unknown): void {
    const raw = request.cookies[SIGN_IN_FORM_COOKIE];
    const unsigned = raw ? request.unsignCookie(raw) : undefined;
    const token = unsigned?.valid ? unsigned.value : null;
    const expiresAt = Number(token?.split('.', 1)[0]);
    if (!token || typeof sent !== 'string' || !same(token, sent) || !(expiresAt > this.clock.now().getTime())) throw new SignInFormExpired();
  }
}

/** RFC 7636 S256: the challenge sent with the authorization request. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function random(): string {
  return randomBytes(32).toString('base64url');
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function parse(value: string): LoginState | null {
  try {
    const login = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<LoginState>;
    const strings = [login.state, login.nonce, login.verifier].every((field) => typeof field === 'string' && field.length > 0);
    return strings && typeof login.expiresAt === 'number' ? (login as LoginState) : null;
  } catch {
    return null;
  }
}
