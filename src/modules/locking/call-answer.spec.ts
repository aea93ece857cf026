import { RAW_RESPONSE } from '../../common/http/answer';
import { DomainError } from '../../common/errors/domain-error';
import { REPLAYED_HEADER } from '../idempotency/replayed-answer';
import { outcomeText, sentAnswer } from './call-answer';
import { Outcome } from './call-outcome';

const PUBLIC_URL = 'http://enrollment.test';

describe('call answers at the HTTP edge', () => {
  describe(outcomeText.name, () => {
    it('puts completed and incomplete data in the success envelope', () => {
      const sut = outcomeText('r-1', Outcome.incomplete({ account: { id: 'a-1' } }), PUBLIC_URL);
      expect(JSON.parse(sut)).toEqual({ requestId: 'r-1', responseDetails: [{ code: 0, subCode: 0, description: 'Success' }], account: { id: 'a-1' } });
    });

    it('answers a decline in the error envelope, each detail linked to its row of /docs/errors, with its data beside it', () => {
      const sut = JSON.parse(outcomeText('r-1', Outcome.declined(new DomainError('ACTIVE_SSN_LIMIT'), { account: { id: 'a-0' } }), PUBLIC_URL));
      expect(sut).toMatchObject({ requestId: 'r-1', account: { id: 'a-0' } });
      expect(sut.responseDetails).toEqual([
        expect.objectContaining({ code: 2, subCode: 60, docUrl: expect.stringMatching(/^http:\/\/enrollment\.test\/docs\/errors#/) }),
      ]);
    });

    it('refuses a decline that is not an HTTP 200 answer', () => {
      expect(() => outcomeText('r-1', Outcome.declined(new DomainError('ACCOUNT_NOT_FOUND')), PUBLIC_URL)).toThrow(
        'ACCOUNT_NOT_FOUND is not an HTTP 200 decline',
      );
    });
  });

  describe(sentAnswer.name, () => {
    it('sends the text as it is, as JSON, marked replayed only when it was, with the code it leads with for the log line', () => {
      const fresh = sentAnswer({ replayed: false, outcome: Outcome.completed({}), body: '{"a":1}' });
      const stored = '{"requestId":"r-1","responseDetails":[{"code":2,"subCode":60,"description":"Declined"}]}';
      const replayed = sentAnswer({ replayed: true, body: stored });
      expect(fresh).toEqual({
        [RAW_RESPONSE]: true,
        body: '{"a":1}',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        code: expect.objectContaining({ code: 0, subCode: 0 }),
      });
      expect(replayed).toEqual({
        [RAW_RESPONSE]: true,
        body: stored,
        headers: { 'content-type': 'application/json; charset=utf-8', [REPLAYED_HEADER]: 'true' },
        code: { code: 2, subCode: 60 },
      });
    });
  });
});
