import { rawResponse, RawResponse } from '../../common/http/answer';
import { leadingCode } from '../../common/http/envelope';

export const REPLAYED_HEADER = 'idempotent-replayed';

/** A stored final answer sent again: its text byte for byte, marked `Idempotent-Replayed: true`; its code for the log line. */
export function replayedAnswer(storedBody: string): RawResponse {
  return rawResponse(storedBody, { 'content-type': 'application/json; charset=utf-8', [REPLAYED_HEADER]: 'true' }, leadingCode(storedBody));
}
