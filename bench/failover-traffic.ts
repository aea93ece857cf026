/**
 * The failover scenario's partners: enrollments (some on contended SSNs), replays, user updates and
 * webhook test events, each call resent under SERVICE.md's retry policy (only a 503 with
 * Retry-After, the same request, at most 3 times; client/retry-policy.ts). Each attempt is timed,
 * so the first success after the kill can be told from one that committed before it.
 */
import { ApiBody, ApiResponse, EnrollmentClient } from '../client/enrollment-client';
import { defaultRetryPolicy, retryDelay, shouldRetry } from '../client/retry-policy';
import { enrollmentBody, phoneFor, ssnFor, userUpdateBody } from './requests';

export interface Acknowledged {
  partner: string;
  requestId: string;
  accountIdentifier: string;
  userIdentifier: string;
  body: string;
  contendedSsn?: number;
  retries: number;
}

export interface TrafficReport {
  acknowledged: Acknowledged[];
  /** Calls whose every attempt, and the identical resends after the burst, failed: partner/requestId and last answer. */
  unresolved: string[];
  /** Event ids answered 200 by the webhook test endpoint. */
  testEvents: string[];
  outcomes: Record<string, number>;
  /** Answers no call may get: a 500, a 503 without Retry-After, a replay naming another account. */
  anomalies: string[];
  /** Attempts answered 500. */
  fiveHundreds: number;
  /** When the first enrollment attempt sent after `since` was answered 200 (ms epoch). */
  firstSuccessAfter(since: number): number | undefined;
}

export interface TrafficOptions {
  partners: Array<{ partnerId: string; clientId: string; clientSecret: string }>;
  baseUrls: string[];
  programCode: string;
  concurrency: number;
  contended: number[];
}

interface Attempted {
  response?: ApiResponse;
  retries: number;
}

export class Traffic {
  private readonly acknowledged: Acknowledged[] = [];
  private readonly pending: Array<{ partner: number; requestId: string; body: string; contendedSsn?: number; last: string }> = [];
  private readonly testEvents: string[] = [];
  private readonly outcomes: Record<string, number> = {};
  private readonly anomalies: string[] = [];
  private readonly successTimes: Array<{ sentAt: number; answeredAt: number }> = [];
  private readonly clients: EnrollmentClient[][];
  private fiveHundreds = 0;
  private sequence = 0;
  private turn = 0;

  constructor(private readonly options: TrafficOptions) {
    this.clients = options.partners.map((partner) => options.baseUrls.map((baseUrl) => new EnrollmentClient({ baseUrl, ...partner })));
  }

  /** Tokens before the burst: the scenario is about the database, not the token endpoint. */
  async warm(): Promise<void> {
    for (const row of this.clients) for (const client of row) await client.accessToken();
  }

  async run(until: () => boolean): Promise<void> {
    const loops = this.options.partners.flatMap((_, partner) => Array.from({ length: this.options.concurrency }, () => this.loop(partner, until)));
    await Promise.all(loops);
  }

  /** SERVICE.md: an incomplete operation completes when the identical call is repeated. */
  async resendUnresolved(deadline: number): Promise<void> {
    while (this.pending.length > 0 && Date.now() < deadline) {
      const batch = this.pending.splice(0);
      for (const item of batch) await this.enroll(item.partner, item.body, item.requestId, item.contendedSsn);
    }
  }

  report(): TrafficReport {
    const times = [...this.successTimes];
    return {
      acknowledged: this.acknowledged,
      unresolved: this.pending.map((p) => `${this.options.partners[p.partner].partnerId}/${p.requestId}: ${p.last}`),
      testEvents: this.testEvents,
      outcomes: this.outcomes,
      anomalies: this.anomalies,
      fiveHundreds: this.fiveHundreds,
      firstSuccessAfter: (since) =>
        times
          .filter((t) => t.sentAt >= since)
          .map((t) => t.answeredAt)
          .sort((a, b) => a - b)[0],
    };
  }

  private async loop(partner: number, until: () => boolean): Promise<void> {
    while (!until()) {
      const roll = Math.random();
      if (roll < 0.5) await this.newEnrollment(partner, false);
      else if (roll < 0.58) await this.newEnrollment(partner, true);
      else if (roll < 0.7) await this.replay(partner);
      else if (roll < 0.88) await this.updateUser(partner);
      else await this.testEvent(partner);
    }
  }

  private client(partner: number): EnrollmentClient {
    this.turn += 1;
    return this.clients[partner][this.turn % this.options.baseUrls.length];
  }

  private count(key: string): void {
    this.outcomes[key] = (this.outcomes[key] ?? 0) + 1;
  }

  private anomaly(text: string): void {
    if (this.anomalies.length < 100) this.anomalies.push(text);
  }

  /** One logical call: attempts under the retry policy, each on the next instance, each timed. */
  private async attempt(op: string, partner: number, send: (c: EnrollmentClient) => Promise<ApiResponse>): Promise<Attempted> {
    for (let retries = 0; ; retries += 1) {
      const sentAt = Date.now();
      let response: ApiResponse | undefined;
      try {
        response = await send(this.client(partner));
      } catch (error) {
        this.count(`${op} thrown`);
        this.anomaly(`${op} threw ${(error as Error).message.slice(0, 80)}`);
        return { retries };
      }
      const detail = response.body?.responseDetails?.[0];
      this.count(`${op} ${response.status}/${detail?.code ?? '-'}/${detail?.subCode ?? '-'}`);
      if (response.status === 500) {
        this.fiveHundreds += 1;
        this.anomaly(`${op} answered 500 ${JSON.stringify(detail ?? {}).slice(0, 120)}`);
      }
      if (response.status === 503 && !response.headers.get('retry-after')) this.anomaly(`${op} answered 503 without Retry-After`);
      if (op.startsWith('enroll') && response.status === 200 && detail?.code === 0) this.successTimes.push({ sentAt, answeredAt: Date.now() });
      if (!shouldRetry(response.status) || !response.headers.get('retry-after') || retries >= defaultRetryPolicy.ranges.length) return { response, retries };
      await defaultRetryPolicy.sleep(retryDelay(defaultRetryPolicy, retries));
    }
  }

  private newEnrollment(partner: number, contended: boolean): Promise<void> {
    const k = this.sequence++;
    const n = 3_000_000 + k;
    const ssnN = contended ? this.options.contended[k % this.options.contended.length] : n;
    const requestId = `failover-${k}`;
    const body = JSON.stringify(enrollmentBody({ requestId, ssn: ssnFor(ssnN), phone: phoneFor(n), n }));
    return this.enroll(partner, body, requestId, contended ? ssnN : undefined);
  }

  private async enroll(partner: number, body: string, requestId: string, contendedSsn?: number): Promise<void> {
    const op = contendedSsn === undefined ? 'enroll' : 'enroll-contended';
    const path = `/v1/programs/${this.options.programCode}/enrollments`;
    const { response, retries } = await this.attempt(op, partner, (c) => c.post(path, undefined, { rawBody: body, noRetry: true }));
    const data = response?.body as (ApiBody & { account?: { accountIdentifier?: string }; user?: { userIdentifier?: string } }) | undefined;
    const detail = data?.responseDetails?.[0];
    if (response?.status === 200 && detail?.code === 0 && data?.account?.accountIdentifier && data.user?.userIdentifier) {
      const partnerId = this.options.partners[partner].partnerId;
      this.acknowledged.push({
        partner: partnerId,
        requestId,
        accountIdentifier: data.account.accountIdentifier,
        userIdentifier: data.user.userIdentifier,
        body,
        contendedSsn,
        retries,
      });
    } else if (!response || response.status === 503) {
      this.pending.push({ partner, requestId, body, contendedSsn, last: response ? `503/${detail?.code}/${detail?.subCode}` : 'thrown' });
    } else if (!(contendedSsn !== undefined && response.status === 200 && detail?.code === 2)) {
      this.anomaly(`${op} ${requestId} answered ${response.status} ${JSON.stringify(detail ?? {}).slice(0, 120)}`);
    }
  }

  private mine(partner: number): Acknowledged | undefined {
    const partnerId = this.options.partners[partner].partnerId;
    const list = this.acknowledged.filter((a) => a.partner === partnerId);
    return list.length > 0 ? list[Math.floor(Math.random() * list.length)] : undefined;
  }

  private async replay(partner: number): Promise<void> {
    const target = this.mine(partner);
    if (!target) return this.newEnrollment(partner, false);
    const path = `/v1/programs/${this.options.programCode}/enrollments`;
    const { response } = await this.attempt('replay', partner, (c) => c.post(path, undefined, { rawBody: target.body, noRetry: true }));
    const account = (response?.body as (ApiBody & { account?: { accountIdentifier?: string } }) | undefined)?.account;
    if (response?.status === 200 && account?.accountIdentifier !== target.accountIdentifier) {
      this.anomaly(`replay of ${target.requestId} answered account ${account?.accountIdentifier} instead of ${target.accountIdentifier}`);
    }
  }

  private async updateUser(partner: number): Promise<void> {
    const target = this.mine(partner);
    if (!target) return this.newEnrollment(partner, false);
    const path = `/v1/programs/${this.options.programCode}/accounts/${target.accountIdentifier}/users/${target.userIdentifier}`;
    const { response } = await this.attempt('update', partner, (c) => c.put(path, userUpdateBody(this.sequence++), { noRetry: true }));
    if (response && response.status !== 200 && response.status !== 503) this.anomaly(`update ${target.accountIdentifier} answered ${response.status}`);
  }

  private async testEvent(partner: number): Promise<void> {
    const body = { eventType: 'accountUpdated', programCode: this.options.programCode };
    const { response } = await this.attempt('webhook-test', partner, (c) => c.post('/v1/webhooks/test', body, { noRetry: true }));
    const eventId = (response?.body as (ApiBody & { eventId?: string }) | undefined)?.eventId;
    if (response?.status === 200 && eventId) this.testEvents.push(eventId);
    else if (response && response.status !== 503) this.anomaly(`webhook test answered ${response.status}`);
  }
}
