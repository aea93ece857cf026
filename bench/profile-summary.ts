/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time, and the same
 * grouped by package (node_modules/<name>) or project folder. Usable alone:
 * `node dist/bench/profile-summary.js <file.cpuprofile> [top]`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTimeRow {
  name: string;
  selfMs: number;
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  functions: SelfTimeRow[];
  modules: SelfTimeRow[];
  /** The service's own functions (dist/src) by inclusive time: where library time is spent from. */
  projectInclusive: SelfTimeRow[];
}

function where(url: string): string {
  if (!url) return '(native)';
  const clean = url.replace(/^file:\/\//, '');
  const nm = clean.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = clean.slice(nm + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (clean.startsWith('node:')) return clean;
  const dist = clean.indexOf('/dist/');
  return dist >= 0 ? path.dirname(clean.slice(dist + 1)) : clean;
}

function shortFile(url: string): string {
  const clean = url.replace(/^file:\/\//, '');
  const nm = clean.lastIndexOf('node_modules/');
  if (nm >= 0) return clean.slice(nm + 'node_modules/'.length);
  const dist = clean.indexOf('/dist/');
  return dist >= 0 ? clean.slice(dist + 1) : clean;
}

export function summariseProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (frame: ProfileNode['callFrame']) =>
    `${frame.functionName || '(anonymous)'} ${frame.url ? `${shortFile(frame.url)}:${frame.lineNumber + 1}` : ''}`.trim();
  let total = 0;
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    total += micros;
    const fn = label(frame);
    functions.set(fn, (functions.get(fn) ?? 0) + micros);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const ancestor = byId.get(at)?.callFrame;
      if (!ancestor?.url.includes('/dist/src/')) continue;
      const name = label(ancestor);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
    }
    const mod = ['(idle)', '(program)', '(garbage collector)'].includes(frame.functionName) ? frame.functionName : where(frame.url);
    modules.set(mod, (modules.get(mod) ?? 0) + micros);
  }
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({ name, selfMs: Math.round(micros / 1000), percent: Math.round((micros / total) * 1000) / 10 }));
  return { totalMs: Math.round(total / 1000), functions: rows(functions), modules: rows(modules), projectInclusive: rows(inclusive) };
}

export function formatSummary(summary: ProfileSummary): string {
  const lines = [`total sampled: ${summary.totalMs} ms`, '', 'self time by package / folder:'];
  for (const row of summary.modules) lines.push(`  ${String(row.percent).padStart(5)}%  ${String(row.selfMs).padStart(7)} ms  ${row.name}`);
  lines.push('', 'top functions by self time:');
  for (const row of summary.functions) lines.push(`  ${String(row.percent).padStart(5)}%  ${String(row.selfMs).padStart(7)} ms  ${row.name}`);
  lines.push('', "the service's own functions by inclusive time (self + callees):");
  for (const row of summary.projectInclusive) lines.push(`  ${String(row.percent).padStart(5)}%  ${String(row.selfMs).padStart(7)} ms  ${row.name}`);
  return lines.join('\n');
}

if (require.main === module) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/profile-summary.js <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatSummary(summariseProfile(file, Number(top ?? 25)))}\n`);
}
