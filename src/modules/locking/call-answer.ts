import { rawResponse, RawResponse } from '../../common/http/answer';
import { errorEnvelope, successEnvelope } from '../../common/http/envelope';
import { SUCCESS_DETAIL } from '../../common/errors/error-catalogue';
import { replayedAnswer } from '../idempotency/replayed-answer';
import { CallAnswer, CallOutcome } from './call-outcome';

/**
 * The envelope of an outcome, as JSON text: data in the success envelope; a decline (HTTP 200, code
 * 2 or 5) in the error envelope with any data beside it. The HTTP edge of an idempotent call hands
 * it to the runner (`IdempotentCall.render`), which stores this text with a final answer before
 * COMMIT, so a replay sends the same bytes.
 */
export function outcomeText(requestId: string, outcome: CallOutcome<object>, publicUrl: string): string {
  switch (outcome.kind) {
    case 'completed':
    case 'incomplete':
      return JSON.stringify(successEnvelope(requestId, outcome.data));
    case 'declined':
    case 'held':
      if (outcome.decline.entry.http !== 200) throw new Error(`${outcome.decline.key} is not an HTTP 200 decline`);
      return JSON.stringify(errorEnvelope(requestId, outcome.decline.details(), publicUrl, outcome.data));
  }
}

/**
 * The reply of a call's answer (controllers return it): its text as it is, marked
 * `Idempotent-Replayed: true` when replayed; the code and subCode it leads with (a decline's
 * catalogue row, else Success) beside it for the log line.
 */
export function sentAnswer(answer: CallAnswer): RawResponse {
  if (answer.replayed) return replayedAnswer(answer.body);
  const outcome = answer.outcome;
  const code = outcome.kind === 'declined' || outcome.kind === 'held' ? outcome.decline.entry : SUCCESS_DETAIL;
  return rawResponse(answer.body, { 'content-type': 'application/json; charset=utf-8' }, code);
}
