/**
 * The bench's scenarios. Each yields the next request to send (unique where the scenario says so)
 * and judges each answer: only HTTP 200 with code 0 (or a token) counts as a success, so a
 * business decline under load is reported as an error, not as throughput.
 */
import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { Enrolled, enrolledFrom, enrollmentBody, phoneFor, ssnFor, userUpdateBody } from './requests';
import { BENCH_PROGRAM, benchTokenRequest } from './workspace';

export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** Why it cannot run (no seed accounts); undefined when it can. */
  blocked(): string | undefined;
  next(): BenchRequest;
  /** True when the answer is a success; may record what a later scenario needs. */
  accept(status: number, text: string, request: BenchRequest): boolean;
}

/** The accounts the read and update scenarios cycle through, enrolled before them when none are. */
export const SEED_ACCOUNTS = 200;

/** Sends one bench request to the service at `baseUrl`; its status and text. */
export async function sendRequest(baseUrl: string, request: BenchRequest): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  return { status: response.status, text: await response.text() };
}

/** A bench request sent in-process: its status and text. */
export type Inject = (request: BenchRequest) => Promise<{ statusCode: number; payload: string }>;

/** Sends bench requests in-process through a Fastify instance's `inject` (no socket). */
export function injectInto(instance: { inject(options: InjectOptions): Promise<{ statusCode: number; payload: string }> }): Inject {
  return (request) => instance.inject({ method: request.method, url: request.path, headers: request.headers, payload: request.body });
}

/** Enrolls accounts through `enrollment` (8 at a time) until the context holds SEED_ACCOUNTS; each answer recorded by the scenario. */
export async function seedAccounts(baseUrl: string, enrollment: Scenario, context: ScenarioContext): Promise<void> {
  let remaining = SEED_ACCOUNTS - context.enrolled.length;
  const worker = async () => {
    while (remaining-- > 0) {
      const request = enrollment.next();
      const answer = await sendRequest(baseUrl, request);
      enrollment.accept(answer.status, answer.text, request);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

export interface ScenarioContext {
  token: string;
  /** Accounts enrolled so far (by the enrollment scenario or the seeding step). */
  enrolled: Enrolled[];
}

const MAX_KEPT = 5000;
const runTag = randomBytes(3).toString('hex');
let counter = 0;

function json(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}

/**
 * The service's answers are compact JSON whose first responseDetails entry starts with its code, so
 * a success holds this text once; a decline or an error holds another code there. Checked as text,
 * not parsed: the load generator shares the two cores with the server, and parsing every answer
 * would cost it CPU that the baselines, which answer a constant, never pay.
 */
const SUCCESS = '"responseDetails":[{"code":0,';

export function isSuccess(status: number, text: string): boolean {
  return status === 200 && text.includes(SUCCESS);
}

export function nextEnrollment(token: string): BenchRequest {
  const n = counter++;
  const body = enrollmentBody({ requestId: `bench-${runTag}-${n}`, ssn: ssnFor(n), phone: phoneFor(n), n });
  return { method: 'POST', path: `/v1/programs/${BENCH_PROGRAM}/enrollments`, headers: json(token), body: JSON.stringify(body) };
}

function rotating(context: ScenarioContext): () => Enrolled {
  let i = 0;
  return () => context.enrolled[i++ % context.enrolled.length];
}

const needsSeeds = (context: ScenarioContext) => () => (context.enrolled.length === 0 ? 'no enrolled accounts to work on' : undefined);

export function buildScenarios(context: ScenarioContext): Scenario[] {
  const nextReplay = rotating(context);
  const nextGet = rotating(context);
  const nextUpdate = rotating(context);
  let updates = 0;
  return [
    {
      name: 'token',
      description: 'POST /oauth2/token (client_credentials, client_secret_basic)',
      blocked: () => undefined,
      next: benchTokenRequest,
      accept: (status, text) => status === 200 && text.includes('"access_token"'),
    },
    {
      name: 'enrollment',
      description: 'POST enrollments, unique SSN, phone and requestId each',
      blocked: () => undefined,
      next: () => nextEnrollment(context.token),
      accept: (status, text, request) => {
        const enrolled = enrolledFrom(status, text, request.body ?? '');
        if (enrolled && context.enrolled.length < MAX_KEPT) context.enrolled.push(enrolled);
        return enrolled !== undefined;
      },
    },
    {
      name: 'replay',
      description: 'POST enrollments again with a completed requestId and the identical body',
      blocked: needsSeeds(context),
      next: () => ({ method: 'POST', path: `/v1/programs/${BENCH_PROGRAM}/enrollments`, headers: json(context.token), body: nextReplay().body }),
      accept: isSuccess,
    },
    {
      name: 'get-account',
      description: 'GET enrollments/accounts/{accountIdentifier}',
      blocked: needsSeeds(context),
      next: () => ({ method: 'GET', path: `/v1/programs/${BENCH_PROGRAM}/enrollments/accounts/${nextGet().accountIdentifier}`, headers: json(context.token) }),
      accept: isSuccess,
    },
    {
      name: 'user-update',
      description: 'PUT accounts/{accountIdentifier}/users/{userIdentifier} (address and email)',
      blocked: needsSeeds(context),
      next: () => {
        const target = nextUpdate();
        return {
          method: 'PUT',
          path: `/v1/programs/${BENCH_PROGRAM}/accounts/${target.accountIdentifier}/users/${target.userIdentifier}`,
          headers: json(context.token),
          body: JSON.stringify(userUpdateBody(updates++)),
        };
      },
      accept: isSuccess,
    },
  ];
}
