/** Drives one target with autocannon and reduces the result to the figures the report shows. */
import autocannon from 'autocannon';
import { CpuSplit, snapshot, split, waitUntilQuiet } from './cpu-split';
import { BenchRequest } from './scenarios';

export interface LoadFigures {
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Non-2xx answers, connection errors and timeouts (10 s), and 2xx answers that were not a success. */
  errors: number;
  non2xx: number;
  transportErrors: number;
  timeouts: number;
  rejected: number;
  /** Sent but neither answered nor failed when the run ended (a stalled server shows here). */
  unfinished: number;
  statusCodes: Record<string, number>;
  /** CPU µs per request by process during the run (cpu-split.ts), when the server's pid is known. */
  cpu?: CpuSplit;
  /**
   * p99 of the requests sent once every connection had its first answer (`connectionsUpMs` after the
   * start), with the time that took: the run's other figures include that ramp (bench/README.md, "The
   * connection ramp"). Undefined when a connection never had an answer.
   */
  steadyP99Ms?: number;
  connectionsUpMs?: number;
  /** A run in turns: each part's req/s, in turn order (bench/README.md, "Turns"). */
  partsRequestsPerSecond?: number[];
}

export interface LoadOptions {
  baseUrl: string;
  connections: number;
  durationSeconds: number;
  next: () => BenchRequest;
  /** Path to send instead of the scenario's (the baselines). */
  pathOverride?: string;
  /** Or a prefix to the scenario's own path (a baseline (c) whose route keeps the scenario's path parameters). */
  pathPrefix?: string;
  accept?: (status: number, text: string, request: BenchRequest) => boolean;
  /** The server's process, for the CPU split. */
  serverPid?: number;
}

interface Context {
  current?: BenchRequest;
  sentAt?: number;
  /** The order in which it was built: the first `connections` requests are the connections' first. */
  order?: number;
}

/** One answer: when its request was sent and how long it took (the load generator's clock, ms). */
export interface Sample {
  order: number;
  sentAt: number;
  latencyMs: number;
}

/**
 * The run once its connections were up. autocannon opens every connection at the start and sends
 * each one's first request at once; a Node server accepts one connection per turn of its event loop
 * (libuv since 1.45), so the last of them wait for the turns the first ones' work takes. The ramp
 * ends when every connection has had its first answer; the p99 is read on the requests sent after it.
 */
export function afterRamp(samples: readonly Sample[], connections: number): { steadyP99Ms?: number; connectionsUpMs?: number } {
  const firsts = samples.filter((s) => s.order < connections);
  if (samples.length === 0 || firsts.length < connections) return {};
  const start = Math.min(...firsts.map((s) => s.sentAt));
  const up = Math.max(...firsts.map((s) => s.sentAt + s.latencyMs));
  const steady = samples.filter((s) => s.sentAt >= up).map((s) => s.latencyMs);
  if (steady.length === 0) return { connectionsUpMs: round(up - start) };
  return { steadyP99Ms: round(percentile(steady, 0.99)), connectionsUpMs: round(up - start) };
}

/** Nearest-rank percentiles (each q in 0..1) of unsorted values, sorted once; 0 of none. */
export function percentiles<const Q extends readonly number[]>(values: readonly number[], qs: Q): { -readonly [K in keyof Q]: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return qs.map((q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0) as { -readonly [K in keyof Q]: number };
}

/** Nearest-rank percentile (q in 0..1) of unsorted values; 0 of none. */
export function percentile(values: readonly number[], q: number): number {
  return percentiles(values, [q])[0];
}

export async function drive(options: LoadOptions): Promise<LoadFigures> {
  let rejected = 0;
  let built = 0;
  const samples: Sample[] = [];
  const first = options.next();
  const pathOf = (request: BenchRequest) => options.pathOverride ?? `${options.pathPrefix ?? ''}${request.path}`;
  const cpuBefore = snapshot(options.serverPid);
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    duration: options.durationSeconds,
    timeout: 10,
    requests: [
      {
        method: first.method,
        path: pathOf(first),
        setupRequest: (request: autocannon.Request, context: object) => {
          const next = options.next();
          (context as Context).current = next;
          (context as Context).sentAt = performance.now();
          (context as Context).order = built++;
          return { ...request, method: next.method, path: pathOf(next), headers: next.headers, body: next.body };
        },
        onResponse: (status: number, body: string, context: object) => {
          const { current: sent, sentAt, order } = context as Context;
          if (sentAt !== undefined && order !== undefined) samples.push({ order, sentAt, latencyMs: performance.now() - sentAt });
          if (options.accept && sent && status >= 200 && status < 300 && !options.accept(status, body, sent)) rejected += 1;
        },
      },
    ],
  });
  const cpuAfter = snapshot(options.serverPid);
  await waitUntilQuiet(options.serverPid);
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = Number(stat.count ?? 0);
  const completed = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const unfinished = Math.max(0, result.requests.sent - completed - result.errors);
  return {
    requests: completed,
    durationSeconds: result.duration,
    requestsPerSecond: round(completed / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    errors: result.non2xx + result.errors + rejected,
    non2xx: result.non2xx,
    transportErrors: result.errors,
    timeouts: result.timeouts,
    rejected,
    unfinished,
    statusCodes,
    cpu: split(cpuBefore, cpuAfter, completed),
    ...afterRamp(samples, options.connections),
  };
}

/**
 * One target's figures from runs taken in turns with other targets: counts added, rates over the
 * summed time, p50 weighted by requests, p99 and max the highest of the parts (a percentile of the
 * whole cannot be rebuilt from the parts' percentiles; the highest one errs on the cautious side),
 * CPU per request weighted by requests and machine busy by time.
 */
export function combine(parts: LoadFigures[]): LoadFigures {
  if (parts.length === 1) return parts[0] as LoadFigures;
  const sum = (pick: (f: LoadFigures) => number) => parts.reduce((total, f) => total + pick(f), 0);
  const requests = sum((f) => f.requests);
  const durationSeconds = sum((f) => f.durationSeconds);
  const byRequests = (pick: (f: LoadFigures) => number) => (requests ? sum((f) => pick(f) * f.requests) / requests : 0);
  const statusCodes: Record<string, number> = {};
  for (const f of parts) for (const [code, count] of Object.entries(f.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const highest = (key: 'steadyP99Ms' | 'connectionsUpMs') => {
    const values = parts.map((f) => f[key]);
    return values.every((v): v is number => v !== undefined) ? { [key]: Math.max(...values) } : {};
  };
  const cpuParts = parts.map((f) => f.cpu);
  const cpu = cpuParts.every((c): c is CpuSplit => c !== undefined)
    ? {
        server: Math.round(byRequests((f) => f.cpu?.server ?? 0)),
        database: Math.round(byRequests((f) => f.cpu?.database ?? 0)),
        loadGenerator: Math.round(byRequests((f) => f.cpu?.loadGenerator ?? 0)),
        machineBusyPercent: Math.round(sum((f) => (f.cpu?.machineBusyPercent ?? 0) * f.durationSeconds) / durationSeconds),
      }
    : undefined;
  return {
    requests,
    durationSeconds,
    requestsPerSecond: round(requests / durationSeconds),
    p50Ms: round(byRequests((f) => f.p50Ms)),
    p99Ms: Math.max(...parts.map((f) => f.p99Ms)),
    ...highest('steadyP99Ms'),
    ...highest('connectionsUpMs'),
    maxMs: Math.max(...parts.map((f) => f.maxMs)),
    errors: sum((f) => f.errors),
    non2xx: sum((f) => f.non2xx),
    transportErrors: sum((f) => f.transportErrors),
    timeouts: sum((f) => f.timeouts),
    rejected: sum((f) => f.rejected),
    unfinished: sum((f) => f.unfinished),
    statusCodes,
    cpu,
    partsRequestsPerSecond: parts.map((f) => f.requestsPerSecond),
  };
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
