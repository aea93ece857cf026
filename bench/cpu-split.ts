/**
 * Where the CPU of a load run went, by process: the server under test, PostgreSQL (every process
 * whose command line names postgres) and this process (autocannon, the load generator), read from
 * /proc before and after the run and divided by the requests answered. On two cores all three
 * share the machine, so a ratio between two servers is a ratio of these sums, not of the servers'
 * own CPU. Linux only: without /proc it reports nothing.
 */
import * as fs from 'node:fs';

export interface CpuSplit {
  /** CPU µs per request of the server under test. */
  server: number;
  /** CPU µs per request of PostgreSQL (all its processes). */
  database: number;
  /** CPU µs per request of the bench process (autocannon). */
  loadGenerator: number;
  /** Share of the machine's CPU time that was busy during the run, percent of all cores. */
  machineBusyPercent: number;
}

interface Snapshot {
  server: number;
  /** Ticks of each PostgreSQL process by pid: a backend that ends during the run (an idle pool connection closing) must not subtract its whole past. */
  database: Map<string, number>;
  self: number;
  machineBusy: number;
  machineTotal: number;
}

const TICK_US = 1e6 / 100; // USER_HZ: /proc reports clock ticks of 1/100 s on Linux

function processTicks(pid: string): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

function databaseTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres')) ticks.set(pid, processTicks(pid));
    } catch {
      // the process ended while being read
    }
  }
  return ticks;
}

/** CPU of the processes alive at the end: their growth, or all of it for those started during the run. */
function databaseGrowth(before: Map<string, number>, after: Map<string, number>): number {
  let ticks = 0;
  for (const [pid, value] of after) ticks += value - (before.get(pid) ?? 0);
  return ticks * TICK_US;
}

function machineTicks(): { busy: number; total: number } {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return { busy: total - idle, total };
}

export function snapshot(serverPid: number | undefined): Snapshot | undefined {
  if (!serverPid || !fs.existsSync('/proc/stat')) return undefined;
  try {
    const machine = machineTicks();
    const self = process.cpuUsage();
    return {
      server: processTicks(String(serverPid)) * TICK_US,
      database: databaseTicks(),
      self: self.user + self.system,
      machineBusy: machine.busy,
      machineTotal: machine.total,
    };
  } catch {
    return undefined;
  }
}

export function split(before: Snapshot | undefined, after: Snapshot | undefined, requests: number): CpuSplit | undefined {
  if (!before || !after || requests <= 0) return undefined;
  const per = (a: number, b: number) => Math.round((b - a) / requests);
  return {
    server: per(before.server, after.server),
    database: per(0, databaseGrowth(before.database, after.database)),
    loadGenerator: per(before.self, after.self),
    machineBusyPercent: Math.round((100 * (after.machineBusy - before.machineBusy)) / Math.max(1, after.machineTotal - before.machineTotal)),
  };
}

/**
 * Waits until the process `pid` has used at most `quietMs` of CPU in each of two windows of
 * `windowMs` in a row, or `maxMs` went by. autocannon ends a run with a request in flight on every
 * connection (`unfinished`), and the server goes on with them: without this wait the next run
 * begins beside up to that many leftover requests, twice its connections for a moment, and a slow
 * route's p99 becomes that of the next run's first requests (bench/README.md, "Turns"). Without
 * /proc it returns at once.
 */
export async function waitUntilQuiet(pid: number | undefined, { quietMs = 10, windowMs = 100, maxMs = 3_000 } = {}): Promise<void> {
  if (!pid || !fs.existsSync(`/proc/${pid}/stat`)) return;
  const deadline = Date.now() + maxMs;
  let previous = processTicks(String(pid));
  let quietWindows = 0;
  while (quietWindows < 2 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = processTicks(String(pid));
    quietWindows = (now - previous) * (TICK_US / 1000) <= quietMs ? quietWindows + 1 : 0;
    previous = now;
  }
}
