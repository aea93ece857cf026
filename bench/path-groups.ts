/**
 * How `path-files.ts` groups the `src/` files a first enrollment runs: its DTOs and entities, the
 * edge (hooks, guard, envelope, logs, metrics, traces), and the call from the controller to COMMIT,
 * which issue 35 asks to be about 15 files.
 */
export const GROUP = {
  call: 'the call: controller to COMMIT',
  edge: 'edge: hooks, guard, envelope, logs, metrics, traces',
  shapes: 'DTOs and entities',
} as const;
export type Group = (typeof GROUP)[keyof typeof GROUP];
/** The groups in the order path-files.ts prints them. */
export const GROUPS: readonly Group[] = [GROUP.call, GROUP.edge, GROUP.shapes];

const EDGE = [
  'common/http/',
  'common/context/',
  'common/auth/',
  'infrastructure/logging/',
  'infrastructure/metrics/',
  'infrastructure/telemetry/',
  'modules/auth/',
  'modules/care-console/',
];

/** Which group a file of `src/` (relative, e.g. `modules/user/dtos/phone.dto.ts`) belongs to. */
export function groupOf(file: string): Group {
  if (/\/(dtos|entities)\//.test(file) || file.endsWith('.dto.ts')) return GROUP.shapes;
  if (EDGE.some((prefix) => file.startsWith(prefix))) return GROUP.edge;
  return GROUP.call;
}

/** `file:///…/dist/src/x/y.js` → `x/y.ts`; undefined for anything outside the compiled `src/`. */
export function sourceFileOf(url: string): string | undefined {
  const match = /\/dist\/src\/(.+)\.js$/.exec(url);
  return match ? `${match[1]}.ts` : undefined;
}
