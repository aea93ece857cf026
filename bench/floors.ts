/**
 * The speed the service must keep (issue 35, "Speed it must keep"), read on one run's results: the
 * one home of those numbers in the code. Each floor names its figure in this run and, where both
 * sides of its ratio ran in turns, the range of the ratio over the run's parts (bench/README.md,
 * "Turns"), so that a verdict a few points from a floor shows how far the machine moved it. The
 * issue asks for every floor in two full runs; one run's table says whether that run met them.
 */
import type { LoadFigures } from './load';
import type { ScenarioResult } from './report';
import { KIND_LETTERS } from './sql-plan';

export interface FloorReading {
  /** What the floor asks, e.g. "token ≥ 65% of its ceiling". */
  floor: string;
  /** This run's figure, e.g. "61.1%"; "-" when the run did not measure it. */
  figure: string;
  /** The lowest and highest ratio of a part with the part of the baseline in its turn. */
  parts?: [number, number];
  met: boolean;
}

type RatioOf = 'pg' | 'ceiling' | 'handwritten';

interface RatioFloor {
  scenario: string;
  against: RatioOf;
  min: number;
  floor: string;
}

const RATIO_FLOORS: readonly RatioFloor[] = [
  { scenario: 'enrollment', against: 'handwritten', min: 0.65, floor: 'enrollment ≥ 65% of (c)' },
  { scenario: 'get-account', against: 'pg', min: 0.55, floor: 'GET account ≥ 55% of (a)' },
  { scenario: 'user-update', against: 'pg', min: 0.55, floor: 'user update ≥ 55% of (a)' },
  { scenario: 'replay', against: 'pg', min: 0.35, floor: 'replay ≥ 35% of (a)' },
  { scenario: 'token', against: 'ceiling', min: 0.65, floor: 'token ≥ 65% of its ceiling' },
];

export const ENROLLMENT_MAX_P99_MS = 250;
export const ENROLLMENT_MAX_ROUND_TRIPS = 10;

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

function baselineOf(result: ScenarioResult, against: RatioOf): { figures: LoadFigures | undefined; ratio: number | undefined } {
  if (against === 'pg') return { figures: result.baselinePg, ratio: result.ratioPg };
  if (against === 'ceiling') return { figures: result.ceiling, ratio: result.ratioCeiling };
  return { figures: result.handwritten?.figures, ratio: result.ratioHandwritten };
}

/** Each part's ratio to the baseline's part of the same turn, low and high; none unless both ran in the same number of turns. */
export function partsRange(service: LoadFigures | undefined, baseline: LoadFigures | undefined): [number, number] | undefined {
  const mine = service?.partsRequestsPerSecond;
  const theirs = baseline?.partsRequestsPerSecond;
  if (!mine || !theirs || mine.length !== theirs.length || mine.length < 2) return undefined;
  const ratios = mine.map((rps, i) => rps / (theirs[i] as number));
  return [Math.min(...ratios), Math.max(...ratios)];
}

/** The floors of the scenarios `scenarios` measured (a run of a few scenarios reads only theirs). */
export function readFloors(scenarios: readonly ScenarioResult[]): FloorReading[] {
  const measured = (name: string) => scenarios.find((s) => s.name === name && s.status === 'measured');
  const readings: FloorReading[] = [];
  for (const { scenario, against, min, floor } of RATIO_FLOORS) {
    const result = measured(scenario);
    if (!result) continue;
    const { figures, ratio } = baselineOf(result, against);
    if (ratio === undefined) {
      readings.push({ floor, figure: '-', met: false });
      continue;
    }
    const parts = partsRange(result.service, figures);
    readings.push({ floor, figure: percent(ratio), ...(parts ? { parts } : {}), met: ratio >= min });
  }
  const enrollment = measured('enrollment');
  const service = enrollment?.service;
  if (service) {
    // Read once the connections are up (load.ts, afterRamp); a run without that reading is judged
    // on its whole p99. The whole p99 and the ramp are printed beside it.
    const p99 = service.steadyP99Ms ?? service.p99Ms;
    readings.push({
      floor: `enrollment p99 ≤ ${ENROLLMENT_MAX_P99_MS} ms, no error`,
      figure:
        service.steadyP99Ms === undefined
          ? `${service.p99Ms} ms, ${service.errors} errors`
          : `${service.steadyP99Ms} ms once connected (${service.p99Ms} ms with the connection ramp of ${service.connectionsUpMs} ms), ${service.errors} errors`,
      met: p99 <= ENROLLMENT_MAX_P99_MS && service.errors === 0,
    });
  }
  const sql = enrollment?.sql;
  if (sql) {
    const commits = [...sql.plan].filter((letter) => letter === KIND_LETTERS.commit).length;
    const trips = sql.roundTripsPerRequest;
    readings.push({
      floor: `new enrollment ≤ ${ENROLLMENT_MAX_ROUND_TRIPS} round trips, 1 commit`,
      figure: `${trips ?? '-'} round trips, ${commits} commit(s)`,
      met: trips !== undefined && trips <= ENROLLMENT_MAX_ROUND_TRIPS && commits === 1,
    });
  }
  return readings;
}

/** The floors' table of a run, with a line saying whether it met them all; empty when it measured none of their scenarios. */
export function floorsSection(scenarios: readonly ScenarioResult[]): string {
  const readings = readFloors(scenarios);
  if (readings.length === 0) return '';
  const missed = readings.filter((r) => !r.met).length;
  return [
    `Floors (issue 35, "Speed it must keep"; asked of two full runs): ${missed === 0 ? `this run met all ${readings.length}` : `this run missed ${missed} of ${readings.length}`}. ` +
      "Parts: the ratio of each of the service's parts to the baseline's part in the same turn, lowest to highest ((c) runs once, after the service).",
    '',
    '| floor | this run | parts | met |',
    '|---|---:|---:|---|',
    ...readings.map((r) => `| ${r.floor} | ${r.figure} | ${r.parts ? `${percent(r.parts[0])} to ${percent(r.parts[1])}` : '-'} | ${r.met ? 'yes' : 'no'} |`),
  ].join('\n');
}
