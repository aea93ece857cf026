import { floorsSection, partsRange, readFloors } from './floors';
import type { LoadFigures } from './load';
import type { ScenarioResult } from './report';

function figures(requestsPerSecond: number, parts?: number[], p99Ms = 100, errors = 0): LoadFigures {
  return {
    requests: requestsPerSecond * 10,
    durationSeconds: 10,
    requestsPerSecond,
    p50Ms: 10,
    p99Ms,
    maxMs: p99Ms + 1,
    errors,
    non2xx: errors,
    transportErrors: 0,
    timeouts: 0,
    rejected: 0,
    unfinished: 0,
    statusCodes: { '200': requestsPerSecond * 10 },
    ...(parts ? { partsRequestsPerSecond: parts } : {}),
  };
}

function scenario(name: string, fields: Partial<ScenarioResult>): ScenarioResult {
  return { name, description: name, status: 'measured', ...fields };
}

const passing: ScenarioResult[] = [
  scenario('token', { service: figures(7000, [6000, 8000]), ceiling: figures(10000, [10000, 10000]), ratioCeiling: 0.7 }),
  scenario('enrollment', {
    service: figures(700, undefined, 200),
    handwritten: { figures: figures(1000), statements: [] },
    ratioHandwritten: 0.7,
    sql: { plan: 'SBSIIC', statementsPerRequest: 6, roundTripsPerRequest: 4, connectionsPerRequest: 1, calibrationRequests: 20, calibrationFailures: 0 },
  }),
  scenario('replay', { service: figures(4000), baselinePg: figures(8000), ratioPg: 0.5 }),
  scenario('get-account', { service: figures(3600), baselinePg: figures(6000), ratioPg: 0.6 }),
  scenario('user-update', { service: figures(1600), baselinePg: figures(2800), ratioPg: 0.571 }),
];

describe('the speed floors read on a run (issue 35)', () => {
  it('reads every floor of a full run, each ratio against its own baseline', () => {
    const readings = readFloors(passing);
    expect(readings.map((r) => [r.floor, r.figure, r.met])).toEqual([
      ['enrollment ≥ 65% of (c)', '70.0%', true],
      ['GET account ≥ 55% of (a)', '60.0%', true],
      ['user update ≥ 55% of (a)', '57.1%', true],
      ['replay ≥ 35% of (a)', '50.0%', true],
      ['token ≥ 65% of its ceiling', '70.0%', true],
      ['enrollment p99 ≤ 250 ms, no error', '200 ms, 0 errors', true],
      ['new enrollment ≤ 10 round trips, 1 commit', '4 round trips, 1 commit(s)', true],
    ]);
    expect(floorsSection(passing)).toContain('this run met all 7');
  });

  it('misses a ratio under its floor, a p99 over 250 ms, an error, and a second commit', () => {
    const worse = passing.map((s) => {
      if (s.name === 'token') return { ...s, ratioCeiling: 0.649 };
      if (s.name === 'enrollment') {
        return { ...s, service: figures(700, undefined, 251, 1), sql: { ...(s.sql as NonNullable<ScenarioResult['sql']>), plan: 'SBSICIC' } };
      }
      return s;
    });
    const missed = readFloors(worse).filter((r) => !r.met);
    expect(missed.map((r) => [r.floor, r.figure])).toEqual([
      ['token ≥ 65% of its ceiling', '64.9%'],
      ['enrollment p99 ≤ 250 ms, no error', '251 ms, 1 errors'],
      ['new enrollment ≤ 10 round trips, 1 commit', '4 round trips, 2 commit(s)'],
    ]);
    expect(floorsSection(worse)).toContain('this run missed 3 of 7');
  });

  it('reads the p99 once connected where the run has it, printing the whole p99 and the ramp beside it', () => {
    const enrollment = (p99: number, steady: number) => ({ ...figures(700, undefined, p99), steadyP99Ms: steady, connectionsUpMs: 420 });
    const reading = (service: LoadFigures) =>
      readFloors(passing.map((s) => (s.name === 'enrollment' ? { ...s, service } : s))).find((r) => r.floor.startsWith('enrollment p99'));
    expect(reading(enrollment(456, 240))).toEqual({
      floor: 'enrollment p99 ≤ 250 ms, no error',
      figure: '240 ms once connected (456 ms with the connection ramp of 420 ms), 0 errors',
      met: true,
    });
    expect(reading(enrollment(240, 251))?.met).toBe(false);
  });

  it("gives the parts' range where both sides ran in the same turns, and none otherwise", () => {
    expect(partsRange(figures(7000, [6000, 8000]), figures(10000, [10000, 10000]))).toEqual([0.6, 0.8]);
    expect(partsRange(figures(7000, [6000, 8000]), figures(10000))).toBeUndefined();
    expect(partsRange(figures(7000, [7000]), figures(10000, [10000]))).toBeUndefined();
    const table = floorsSection(passing);
    expect(table).toContain('| token ≥ 65% of its ceiling | 70.0% | 60.0% to 80.0% | yes |');
    expect(table).toContain('| replay ≥ 35% of (a) | 50.0% | - | yes |');
  });

  it('reads only the floors of the scenarios a run measured, and a measured scenario without its baseline as missed', () => {
    const tokenOnly = passing.filter((s) => s.name === 'token');
    expect(readFloors(tokenOnly).map((r) => r.floor)).toEqual(['token ≥ 65% of its ceiling']);
    const noBaselines = [scenario('token', { service: figures(7000) })];
    expect(readFloors(noBaselines)).toEqual([{ floor: 'token ≥ 65% of its ceiling', figure: '-', met: false }]);
    expect(floorsSection([])).toBe('');
  });
});
