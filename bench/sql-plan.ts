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
      return KIND_LETTERS.select;
    case 'with':
      return writingVerb(sql) ?? KIND_LETTERS.select;
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

/**
 * A writable CTE (`WITH w AS (UPDATE …) INSERT …`) writes: it is classed by its first
 * data-changing verb, so that baseline (a) writes (and flushes WAL at COMMIT) where the service
 * does. A row lock (`FOR UPDATE`, `FOR NO KEY UPDATE`) is not a write.
 */
function writingVerb(sql: string): string | undefined {
  const verb = /\b(insert|update|delete)\b/i.exec(sql.replace(/\bfor\s+(no\s+key\s+)?update\b/gi, ''))?.[1]?.toLowerCase();
  return verb === 'insert' ? KIND_LETTERS.insert : verb === 'update' ? KIND_LETTERS.update : verb === 'delete' ? KIND_LETTERS.delete : undefined;
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
