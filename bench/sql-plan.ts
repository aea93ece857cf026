/**
 * A request's SQL "plan": one letter per statement, in order. The probe records it for the
 * service; baseline (a) replays the same letters with trivial statements through `pg`.
 */
export const KIND_LETTERS = {
  begin: 'B',
  commit: 'C',
  rollback: 'R',
  select: 'S',
  insert: 'I',
  update: 'U',
  delete: 'D',
  other: 'O',
} as const;

export function statementKind(sql: string): string {
  const word = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? '';
  switch (word) {
    case 'begin':
    case 'start':
      return KIND_LETTERS.begin;
    case 'commit':
      return KIND_LETTERS.commit;
    case 'rollback':
      return KIND_LETTERS.rollback;
    case 'select':
    case 'with':
      return KIND_LETTERS.select;
    case 'insert':
      return KIND_LETTERS.insert;
    case 'update':
      return KIND_LETTERS.update;
    case 'delete':
      return KIND_LETTERS.delete;
    default:
      return KIND_LETTERS.other;
  }
}

/** The most frequent plan among calibration requests (ties: the longer one). */
export function dominantPlan(plans: string[]): string {
  const counts = new Map<string, number>();
  for (const plan of plans) counts.set(plan, (counts.get(plan) ?? 0) + 1);
  let best = '';
  let bestCount = 0;
  for (const [plan, count] of counts) {
    if (count > bestCount || (count === bestCount && plan.length > best.length)) {
      best = plan;
      bestCount = count;
    }
  }
  return best;
}

export function describePlan(plan: string): string {
  if (!plan) return 'none';
  const counts = new Map<string, number>();
  for (const letter of plan) counts.set(letter, (counts.get(letter) ?? 0) + 1);
  return [...counts].map(([letter, count]) => `${count}${letter}`).join(' ');
}
