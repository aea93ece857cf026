/**
 * One soak client process (forked by soak.ts): mixed traffic through the typed client with
 * SERVICE.md's retry policy, alternating between the app instances. Reports what it saw over IPC.
 */
import { ApiBody, ApiResponse, EnrollmentClient } from '../client/enrollment-client';
import { Enrolled, enrollmentBody, phoneFor, ssnFor, userUpdateBody } from './requests';

export interface WorkerConfig {
  index: number;
  baseUrls: string[];
  durationMs: number;
  concurrency: number;
  clientId: string;
  clientSecret: string;
  programCode: string;
  /** SSNs every worker competes for (n values for ssnFor). */
  contended: number[];
}

export interface SeenEnrollment {
  requestId: string;
  accountIdentifier: string;
  contendedSsn?: number;
}

export interface WorkerReport {
  type: 'report';
  index: number;
  successes: SeenEnrollment[];
  /** Calls that failed after every retry and still did after one more identical try at the end: requestId and last answer. */
  unresolved: string[];
  outcomes: Record<string, number>;
  anomalies: string[];
}

const config = JSON.parse(process.env.SOAK_WORKER ?? '{}') as WorkerConfig;
const clients = config.baseUrls.map((baseUrl) => new EnrollmentClient({ baseUrl, clientId: config.clientId, clientSecret: config.clientSecret }));
const mine: Array<Enrolled & { requestId: string }> = [];
const successes: SeenEnrollment[] = [];
const pendingRetry: Array<{ requestId: string; body: string; contendedSsn?: number; last: string }> = [];
const outcomes: Record<string, number> = {};
const anomalies: string[] = [];
let sequence = 0;
let turn = config.index;

function client(): EnrollmentClient {
  turn += 1;
  return clients[turn % clients.length];
}

function count(op: string, outcome: string): void {
  const key = `${op} ${outcome}`;
  outcomes[key] = (outcomes[key] ?? 0) + 1;
}

function anomaly(text: string): void {
  if (anomalies.length < 50) anomalies.push(`worker ${config.index}: ${text}`);
}

function outcomeOf(response: ApiResponse): string {
  const detail = response.body?.responseDetails?.[0];
  return `${response.status}/${detail?.code ?? '-'}/${detail?.subCode ?? '-'}`;
}

/** A call that throws (token endpoint down, say) is reported like a transport failure. */
async function call(op: string, send: (c: EnrollmentClient) => Promise<ApiResponse>): Promise<ApiResponse | undefined> {
  try {
    const response = await send(client());
    if (response.retries > 0) count(op, `needed ${response.retries} retr${response.retries === 1 ? 'y' : 'ies'}`);
    return response;
  } catch (error) {
    count(op, `thrown:${(error as Error).message.slice(0, 40)}`);
    return undefined;
  }
}

async function enroll(body: string, requestId: string, contendedSsn?: number): Promise<void> {
  const op = contendedSsn === undefined ? 'enroll' : 'enroll-contended';
  const response = await call(op, (c) => c.post(`/v1/programs/${config.programCode}/enrollments`, undefined, { rawBody: body }));
  if (!response) {
    pendingRetry.push({ requestId, body, contendedSsn, last: 'thrown' });
    return;
  }
  const outcome = outcomeOf(response);
  count(op, outcome);
  const data = response.body as ApiBody & { account?: { accountIdentifier?: string }; user?: { userIdentifier?: string } };
  if (response.status === 200 && data.responseDetails[0]?.code === 0 && data.account?.accountIdentifier && data.user?.userIdentifier) {
    const seen = { requestId, accountIdentifier: data.account.accountIdentifier, contendedSsn };
    successes.push(seen);
    mine.push({ requestId, body, accountIdentifier: data.account.accountIdentifier, userIdentifier: data.user.userIdentifier });
  } else if (response.status === 503) {
    pendingRetry.push({ requestId, body, contendedSsn, last: `${outcome} ${data.responseDetails?.[0]?.description ?? ''}`.slice(0, 120) });
  } else if (!(contendedSsn !== undefined && response.status === 200 && data.responseDetails[0]?.code === 2)) {
    anomaly(`${op} ${requestId} answered ${outcome} ${JSON.stringify(data.responseDetails?.[0] ?? data).slice(0, 160)}`);
  }
}

function newEnrollment(contended: boolean): Promise<void> {
  const k = sequence++;
  const n = (config.index + 1) * 100_000 + k;
  const ssnN = contended ? config.contended[k % config.contended.length] : n;
  const requestId = `soak-${config.index}-${k}`;
  const body = JSON.stringify(enrollmentBody({ requestId, ssn: ssnFor(ssnN), phone: phoneFor(n), n }));
  return enroll(body, requestId, contended ? ssnN : undefined);
}

function pick<T>(list: T[]): T | undefined {
  return list.length ? list[Math.floor(Math.random() * list.length)] : undefined;
}

async function replay(): Promise<void> {
  const target = pick(mine);
  if (!target) return newEnrollment(false);
  const response = await call('replay', (c) => c.post(`/v1/programs/${config.programCode}/enrollments`, undefined, { rawBody: target.body }));
  if (!response) return;
  count('replay', outcomeOf(response));
  const account = (response.body as ApiBody & { account?: { accountIdentifier?: string } }).account;
  if (response.status === 200 && account?.accountIdentifier !== target.accountIdentifier) {
    anomaly(`replay of ${target.requestId} answered account ${account?.accountIdentifier} instead of ${target.accountIdentifier}`);
  }
}

async function getAccount(): Promise<void> {
  const target = pick(mine);
  if (!target) return newEnrollment(false);
  const response = await call('get', (c) => c.get(`/v1/programs/${config.programCode}/enrollments/accounts/${target.accountIdentifier}`));
  if (!response) return;
  count('get', outcomeOf(response));
  if (response.status !== 200 && response.status !== 503) anomaly(`get ${target.accountIdentifier} answered ${outcomeOf(response)}`);
}

async function updateUser(): Promise<void> {
  const target = pick(mine);
  if (!target) return newEnrollment(false);
  const path = `/v1/programs/${config.programCode}/accounts/${target.accountIdentifier}/users/${target.userIdentifier}`;
  const response = await call('update', (c) => c.put(path, userUpdateBody(sequence++)));
  if (!response) return;
  count('update', outcomeOf(response));
  if (response.status !== 200 && response.status !== 503) anomaly(`update ${target.accountIdentifier} answered ${outcomeOf(response)}`);
}

async function loop(deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const roll = Math.random();
    if (roll < 0.45) await newEnrollment(false);
    else if (roll < 0.55) await newEnrollment(true);
    else if (roll < 0.7) await replay();
    else if (roll < 0.85) await getAccount();
    else await updateUser();
  }
}

async function main(): Promise<void> {
  const deadline = Date.now() + config.durationMs;
  await Promise.all(Array.from({ length: config.concurrency }, () => loop(deadline)));
  // SERVICE.md: an incomplete operation completes when the identical call is repeated.
  const retry = pendingRetry.splice(0);
  for (const item of retry) await enroll(item.body, item.requestId, item.contendedSsn);
  const report: WorkerReport = {
    type: 'report',
    index: config.index,
    successes,
    unresolved: pendingRetry.map((p) => `${p.requestId}: ${p.last}`),
    outcomes,
    anomalies,
  };
  process.send?.(report, () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`soak worker ${config.index} failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
