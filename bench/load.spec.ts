import { afterRamp, combine, LoadFigures, percentile, percentiles, Sample } from './load';

function part(requests: number, seconds: number, p50: number, p99: number, server: number, busy: number): LoadFigures {
  return {
    requests,
    durationSeconds: seconds,
    requestsPerSecond: requests / seconds,
    p50Ms: p50,
    p99Ms: p99,
    maxMs: p99 + 1,
    errors: 1,
    non2xx: 1,
    transportErrors: 0,
    timeouts: 0,
    rejected: 0,
    unfinished: 0,
    statusCodes: { '200': requests - 1, '500': 1 },
    cpu: { server, database: 10, loadGenerator: 20, machineBusyPercent: busy },
  };
}

describe('combine: one target measured in turns', () => {
  it('adds counts, rates over the summed time, p50 and CPU weighted by requests, the highest p99, busy weighted by time', () => {
    const whole = combine([part(3000, 5, 10, 30, 100, 80), part(1000, 5, 20, 50, 200, 90)]);
    expect(whole).toMatchObject({ requests: 4000, durationSeconds: 10, requestsPerSecond: 400, p50Ms: 12.5, p99Ms: 50, maxMs: 51, errors: 2 });
    expect(whole.statusCodes).toEqual({ '200': 3998, '500': 2 });
    expect(whole.cpu).toEqual({ server: 125, database: 10, loadGenerator: 20, machineBusyPercent: 85 });
    expect(whole.partsRequestsPerSecond).toEqual([600, 200]);
  });

  it('is the run itself when there was one part, and leaves CPU out when a part has none', () => {
    const one = part(10, 1, 1, 2, 3, 4);
    expect(combine([one])).toBe(one);
    expect(combine([one, { ...one, cpu: undefined }]).cpu).toBeUndefined();
  });
});

describe('afterRamp: the run once its connections were up', () => {
  // Two connections: their first requests (order 0 and 1) sent at 0, answered at 300 and 100 ms.
  const firsts: Sample[] = [
    { order: 0, sentAt: 0, latencyMs: 300 },
    { order: 1, sentAt: 0, latencyMs: 100 },
  ];

  it('ends the ramp at the last first answer and reads the p99 on the requests sent after it', () => {
    const during = { order: 2, sentAt: 100, latencyMs: 250 };
    const after = Array.from({ length: 100 }, (_, i): Sample => ({ order: 3 + i, sentAt: 300 + i, latencyMs: i + 1 }));
    expect(afterRamp([...firsts, during, ...after], 2)).toEqual({ steadyP99Ms: 99, connectionsUpMs: 300 });
  });

  it('reads nothing when a connection never had an answer, and no p99 when nothing was sent after the ramp', () => {
    expect(afterRamp([firsts[0] as Sample, { order: 2, sentAt: 400, latencyMs: 5 }], 2)).toEqual({});
    expect(afterRamp([], 2)).toEqual({});
    expect(afterRamp(firsts, 2)).toEqual({ connectionsUpMs: 300 });
  });

  it('takes the nearest-rank percentile', () => {
    expect(percentile([5, 1, 4, 2, 3], 0.5)).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 0.99)).toBe(5);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([5, 1, 4, 2, 3], 1)).toBe(5);
    expect(percentile([], 0.5)).toBe(0);
    expect(percentiles([5, 1, 4, 2, 3], [0.5, 0.99, 1])).toEqual([3, 5, 5]);
    expect(percentiles([], [0.5, 1])).toEqual([0, 0]);
  });
});

describe('combine: the readings once connected', () => {
  it('keeps the highest part, and none when a part has none', () => {
    const a = { ...part(100, 1, 1, 40, 1, 1), steadyP99Ms: 20, connectionsUpMs: 300 };
    const b = { ...part(100, 1, 1, 50, 1, 1), steadyP99Ms: 25, connectionsUpMs: 200 };
    expect(combine([a, b])).toMatchObject({ steadyP99Ms: 25, connectionsUpMs: 300 });
    expect(combine([a, part(100, 1, 1, 50, 1, 1)]).steadyP99Ms).toBeUndefined();
  });
});
