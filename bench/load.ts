/** Drives one target with autocannon and reduces the result to the figures the report shows. */
import autocannon from 'autocannon';
import { CpuSplit, snapshot, split } from './cpu-split';
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
}

export interface LoadOptions {
  baseUrl: string;
  connections: number;
  durationSeconds: number;
  next: () => BenchRequest;
  /** Path to send instead of the scenario's (the baselines). */
  pathOverride?: string;
  accept?: (status: number, text: string, request: BenchRequest) => boolean;
  /** The server's process, for the CPU split. */
  serverPid?: number;
}

interface Context {
  current?: BenchRequest;
}

export async function drive(options: LoadOptions): Promise<LoadFigures> {
  let rejected = 0;
  const first = options.next();
  const cpuBefore = snapshot(options.serverPid);
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    duration: options.durationSeconds,
    timeout: 10,
    requests: [
      {
        method: first.method,
        path: options.pathOverride ?? first.path,
        setupRequest: (request: autocannon.Request, context: object) => {
          const next = options.next();
          (context as Context).current = next;
          return { ...request, method: next.method, path: options.pathOverride ?? next.path, headers: next.headers, body: next.body };
        },
        onResponse: (status: number, body: string, context: object) => {
          const sent = (context as Context).current;
          if (options.accept && sent && status >= 200 && status < 300 && !options.accept(status, body, sent)) rejected += 1;
        },
      },
    ],
  });
  const cpuAfter = snapshot(options.serverPid);
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
  };
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
