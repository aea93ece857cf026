import { combine, LoadFigures } from './load';

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
