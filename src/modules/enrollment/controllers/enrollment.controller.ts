import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, successExample } from '../../../common/openapi/api-answers';
import { ACCOUNT_ANSWER_EXAMPLES, ACCOUNT_VIEW_EXAMPLE, ENROLLMENT_ANSWER_EXAMPLES } from '../../account-views/dtos/account-examples';
import { AccountResponseDto } from '../../account-views/dtos/account-view.dto';
import { ENROLLMENT_REQUEST_EXAMPLES, ENROLLMENT_VALIDATION_ERRORS } from '../dtos/enrollment-examples';
import { RequiresScopes } from '../../../common/auth/decorators';
import { CurrentPrincipal } from '../../../common/auth/principal.decorator';
import { Principal } from '../../../common/context/request-context';
import { LIMIT_COUNTING_RULE } from '../../accounts/services/account-limits.service';
import type { AccountView } from '../../account-views/services/account-view.service';
import { ValidBody } from '../../../common/validation/valid-body';
import { RawResponse, validatedOnly, ValidatedOnly } from '../../../common/http/answer';
import { outcomeText, sentAnswer } from '../../locking/call-answer';
import { AppConfig } from '../../../config/app-config';
import { ArrivedBytes, RequestBytes } from '../../../common/http/request-bytes';
import { ValidateOnly } from '../../../common/validation/validate-only';
import { Idempotent } from '../../idempotency/idempotent.decorator';
import { LookedUp, StoredLookup } from '../../idempotency/stored-lookup';
import { ApiLocked } from '../../locking/lock-on.decorator';
import type { CallOutcome } from '../../locking/call-outcome';
import { CreateEnrollmentDto } from '../dtos/create-enrollment.dto';
import { EnrollmentService } from '../services/enrollment.service';
import { EnrollmentRequestsService, RequestStatus } from '../services/enrollment-requests.service';
import { ENROLLMENT_OPERATION } from '../services/enrollment-points';
import { EnrollmentRequestStatusResponse } from '../dtos/request-status.response';
import { EnrollmentPlan, EnrollmentRulesService } from '../services/enrollment-rules.service';
import { NO_QUERY, NoQuery } from '../../../common/validation/validate-only';

const ENROLL_DESCRIPTION = [
  'Creates the user, the account with its primary purse, and the card, in one transaction (an interrupted enrollment completes on the identical retry;',
  "one held for OFAC review answers 5/370 again to the identical retry until the issuer's care team clears the hold, which completes it (or ends it with the limit decline, see Limits)",
  'and stores its final answer, which the identical retry then replays).',
  'HTTP 200 answers: success (account normal; or pending with kycPendingGate manual and an inactive card when KYC refers);',
  'an OFAC hold (5/370 first, account pending/ofacReview, paymentInstruments []); an account-limit decline (code 2, subCodes 60/61/63/66),',
  'with your most recent active enrollment of that key when its date of birth matches.',
  'When the bill-cycle step fails the account stays pending with accountCycleDay null and no card; the identical retry completes it.',
  `Limits: ${LIMIT_COUNTING_RULE}`,
  "Defaults: accountType consumer; currency the program's first currency; the home address is the default address and the first phone the default phone when none is marked.",
  'The user status is "active" at enrollment; the account status carries KYC and OFAC outcomes.',
  'Names and address text are normalised to Unicode NFC before validation, the idempotency comparison and storage: a decomposed "José" (e + U+0301) is the same name.',
  'Further rules:',
  "(1) limits are counted per account type: consumer and small-business accounts of one SSN, ITIN or phone never use each other's slots;",
  "(2) the enrollment returned beside an active-limit decline is the calling partner's own most recent active one of the key, whoever else enrolled the key since; with none, or another date of birth, the decline comes alone;",
  '(3) a Matricula enrollment counts under its default phone only, until an ITIN is added to it (POST identity);',
  '(4) duplicate phone types answer 400/1020 like duplicate address types;',
  '(5) two default phones, ssnSuffix different from last4SSN, accountType business on a program without KYB and a termsAcceptanceDateTime that is not ISO 8601 answer 400/100/5 naming the field;',
  '(6) a date of birth in the future answers 400/700;',
  '(7) an onboardingID on a program without Matricula enrollment, or an empty one, answers 400/660/0;',
  '(8) sandbox only (ignored in production): the last name Kycrefer makes KYC refer the enrollment for manual review (pending, kycPendingGate manual, an inactive card), on programs without kycRequired too;',
  'the last name Ofachold makes OFAC screening hold it (5/370, pending/ofacReview, no card) until care clears it; X-Sandbox-Fault (below) stops it at a chosen point;',
  '(9) a business enrollment needs its businessData: without it, 400/200/0 "businessData is required".',
].join(' ');

const ENROLLMENTS_PATH = 'v1/programs/:programCode/enrollments';

@ApiTags('enrollments')
@Controller(ENROLLMENTS_PATH)
@RequiresScopes('enrollments')
export class EnrollmentController {
  constructor(
    private readonly enrollments: EnrollmentService,
    private readonly requests: EnrollmentRequestsService,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiLocked('requestId', 'ssn')
  // The body pipe reads programCode itself (no @Param), so OpenAPI is told here.
  @ApiParam({ name: 'programCode', type: String, description: "One of the partner's programs (else 403/403/2)", example: 'sandbox' })
  @ApiOperation({ operationId: 'enroll', summary: 'Enroll a user: user, account, primary purse and card in one call', description: ENROLL_DESCRIPTION })
  @ApiAnswer(
    AccountResponseDto,
    'Success, or a business decline with HTTP 200: the OFAC hold (code 5, subCode 370) and the account-limit declines (code 2, subCodes 60, 61, 63, 66). ' +
      'Check responseDetails[0].code: 0 is success. A replayed answer carries the header Idempotent-Replayed: true.',
    ENROLLMENT_ANSWER_EXAMPLES,
  )
  // Nest's order: the guard (RequiresScopes) → the replay of a byte-identical retry (Idempotent) → the body pipes (ValidBody) → the use case.
  @Idempotent(ENROLLMENT_OPERATION)
  @ApiErrors(
    { 400: ENROLLMENT_VALIDATION_ERRORS, 422: ['IDEMPOTENCY_PAYLOAD_MISMATCH'] },
    { 400: 'Every validation row of the enrollment, KYB, currency/terms and user-data tables; further details name each failed field' },
  )
  async enroll(
    @CurrentPrincipal() principal: Principal,
    @ValidateOnly() validateOnly: boolean,
    @ValidBody(CreateEnrollmentDto, { rules: EnrollmentRulesService, examples: ENROLLMENT_REQUEST_EXAMPLES })
    plan: EnrollmentPlan,
    @ArrivedBytes() bytes: RequestBytes,
    @LookedUp() lookedUp: StoredLookup | undefined,
  ): Promise<RawResponse | ValidatedOnly> {
    if (validateOnly) {
      this.enrollments.validate(plan);
      return validatedOnly();
    }
    // The envelope is rendered here, at the edge; the runner stores that text with a final answer.
    const render = (outcome: CallOutcome<object>) => outcomeText(plan.request.requestId, outcome, this.config.env.publicUrl);
    return sentAnswer(await this.enrollments.enroll(principal, plan, { bytes, lookedUp, render }));
  }

  @Get('accounts/:accountIdentifier')
  @ApiOperation({
    operationId: 'getEnrollmentAccount',
    summary: 'The account, its primary user and its cards, as the enrollment answered (current state)',
    description:
      'accountCycleDay (1 to 28) is null only while the account was never activated (OFAC hold, bill cycle missing). ' +
      'It stays shown on locked and closed accounts (the day the account was given does not change).',
  })
  @ApiAnswer(AccountResponseDto, 'The account, its primary user and its cards', ACCOUNT_ANSWER_EXAMPLES)
  @ApiErrors(
    { 400: ['UNKNOWN_PROPERTY'], 404: ['ACCOUNT_NOT_FOUND'] },
    { 400: NO_QUERY, 404: 'Unknown or malformed id, or an account of another partner or program' },
  )
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Param('accountIdentifier') accountIdentifier: string,
    @NoQuery() _query: undefined,
  ): Promise<AccountView> {
    return this.enrollments.get(principal, programCode, accountIdentifier);
  }

  @Get('requests/:requestId')
  @ApiOperation({
    operationId: 'getEnrollmentRequest',
    summary: 'What happened to an enrollment requestId, and the answer its identical retry would replay',
    description:
      'state: inProgress (a call with this requestId is running now), completed (a final answer is stored), declined (a limit decline is stored), ' +
      'held (OFAC review), incomplete (stopped short, e.g. bill cycle: the identical retry resumes it). answer: the stored answer body, or null. ' +
      "When the issuer's care team clears an OFAC hold, the enrollment's final answer is stored at the clearance, and the identical retry replays it (Idempotent-Replayed: true): " +
      'the enrollment (completed), or, when its key filled its limit while it was held, the limit decline (declined; the held account is closed, limitExceeded). ' +
      'One whose account the issuer closed before it finished (held, or incomplete) is completed too: its answer, stored at the close, is code 0 with the closed account. ' +
      "Validation failures and validate-only calls are never recorded. An unknown requestId, or another partner's: 404/10/0.",
  })
  @ApiAnswer(EnrollmentRequestStatusResponse, 'The request and the answer its identical retry would replay', {
    completed: {
      summary: 'Completed: the stored answer',
      value: successExample({
        request: {
          requestId: 'req-20261121-0001',
          state: 'completed',
          createdDateTime: '2026-11-21T10:00:01.000Z',
          updatedDateTime: '2026-11-21T10:00:01.120Z',
        },
        answer: successExample(ACCOUNT_VIEW_EXAMPLE),
      }),
    },
    incomplete: {
      summary: 'Incomplete (bill cycle): no answer stored yet',
      value: successExample({
        request: {
          requestId: 'req-20261121-0001',
          state: 'incomplete',
          createdDateTime: '2026-11-21T10:00:01.000Z',
          updatedDateTime: '2026-11-21T10:00:01.120Z',
        },
        answer: null,
      }),
    },
  })
  @ApiErrors({ 400: ['UNKNOWN_PROPERTY'], 404: ['REQUEST_NOT_FOUND'] }, { 400: NO_QUERY, 404: 'Unknown requestId, or one of another partner or program' })
  async request(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Param('requestId') requestId: string,
    @NoQuery() _query: undefined,
  ): Promise<RequestStatus> {
    return this.requests.status(principal, programCode, requestId);
  }
}
