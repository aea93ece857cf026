import type { DomainError } from '../../common/errors/domain-error';

/**
 * What a state-changing use case answers with HTTP 200. The CallRunner decides what is stored
 * for replay: a completed call and a decline are final; a hold (OFAC review) and an incomplete
 * call (short of a step) are not, so their identical retry resumes them.
 */
export type CallOutcome<T extends object> =
  | { kind: 'completed'; data: T }
  | { kind: 'incomplete'; data: T }
  | { kind: 'declined'; decline: DomainError; data?: T }
  | { kind: 'held'; decline: DomainError; data: T };

export const Outcome = {
  completed: <T extends object>(data: T): CallOutcome<T> => ({ kind: 'completed', data }),
  incomplete: <T extends object>(data: T): CallOutcome<T> => ({ kind: 'incomplete', data }),
  declined: <T extends object>(decline: DomainError, data?: T): CallOutcome<T> => ({ kind: 'declined', decline, data }),
  held: <T extends object>(decline: DomainError, data: T): CallOutcome<T> => ({ kind: 'held', decline, data }),
};

/** Final answers are stored and replayed byte for byte; the others are computed again on retry. */
export function isFinal(outcome: CallOutcome<object>): boolean {
  return outcome.kind === 'completed' || outcome.kind === 'declined';
}

/**
 * What an idempotent call answers, for the HTTP edge to send: the outcome when the work ran now,
 * with the text the edge rendered for it (for a final outcome, exactly the text stored for its
 * replay); or a stored answer replayed (`replayed`), its text as stored.
 */
export type CallAnswer = { replayed: false; outcome: CallOutcome<object>; body: string } | { replayed: true; body: string };
