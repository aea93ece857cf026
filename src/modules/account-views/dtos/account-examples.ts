import { errorExample, Examples, successExample, VALID_ONLY_EXAMPLE } from '../../../common/openapi/api-answers';
import { USER_EXAMPLE } from '../../user/dtos/user-examples';

const ACCOUNT = {
  accountIdentifier: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  programCode: 'sandbox',
  accountType: 'consumer',
  status: 'normal',
  statusReason: null,
  kycPendingGate: 'none',
  accountCycleDay: 21,
  currency: 'USD',
  createdDateTime: '2026-11-21T10:00:01.123Z',
  activatedDateTime: '2026-11-21T10:00:01.123Z',
  closedDateTime: null,
  purses: [{ purseIdentifier: '0f8fad5b-d9cb-469f-a165-70867728950e', purseType: 'primary', currency: 'USD', availableBalance: '0.00', ledgerBalance: '0.00' }],
};
const CARD = {
  paymentIdentifier: '9b2f6c1e-3d0a-4a53-8d7e-2f1c0b6e4a11',
  type: 'virtual',
  status: 'active',
  last4: '1234',
  expirationDate: '2030-11',
  embossedName: 'JOSE NUNEZ',
};

export const ACCOUNT_VIEW_EXAMPLE = { account: ACCOUNT, user: USER_EXAMPLE, paymentInstruments: [CARD] };
const KYC_REFERRED = {
  account: { ...ACCOUNT, status: 'pending', statusReason: 'underReview', kycPendingGate: 'manual' },
  user: USER_EXAMPLE,
  paymentInstruments: [{ ...CARD, status: 'inactive' }],
};
const NEVER_ACTIVATED = (statusReason: string | null) => ({
  account: { ...ACCOUNT, status: 'pending', statusReason, accountCycleDay: null, activatedDateTime: null },
  user: USER_EXAMPLE,
  paymentInstruments: [],
});

/** Every kind of HTTP 200 answer of POST enrollments (and, but for declines, GET account). */
export const ENROLLMENT_ANSWER_EXAMPLES: Examples = {
  success: { summary: 'Enrolled: account normal, card active', value: successExample(ACCOUNT_VIEW_EXAMPLE) },
  kycReferred: { summary: 'KYC referred: account pending, kycPendingGate manual, card inactive (still a success)', value: successExample(KYC_REFERRED) },
  billCycleMissing: {
    summary: 'Bill cycle not created: account pending, accountCycleDay null, no card; the identical retry completes it',
    value: successExample(NEVER_ACTIVATED(null)),
  },
  ofacHold: {
    summary: 'Decline 5/370 (HTTP 200): held for OFAC review; completed by care ofacClear',
    value: errorExample('OFAC_HOLD', NEVER_ACTIVATED('ofacReview')),
  },
  limitDeclineWithEnrollment: {
    summary: 'Decline 2/60 (HTTP 200): active SSN limit; your most recent active enrollment of that SSN (date of birth matches)',
    value: errorExample('ACTIVE_SSN_LIMIT', ACCOUNT_VIEW_EXAMPLE),
  },
  limitDeclineAlone: {
    summary: 'Decline 2/63 (HTTP 200): active phone limit; date of birth differs, the decline comes alone',
    value: errorExample('ACTIVE_PHONE_LIMIT'),
  },
  lifetimeLimitDecline: { summary: 'Decline 2/61 (HTTP 200): lifetime SSN limit', value: errorExample('LIFETIME_SSN_LIMIT') },
  validateOnly: VALID_ONLY_EXAMPLE,
};

export const ACCOUNT_ANSWER_EXAMPLES: Examples = {
  success: ENROLLMENT_ANSWER_EXAMPLES.success,
  kycReferred: ENROLLMENT_ANSWER_EXAMPLES.kycReferred,
  neverActivated: { summary: 'Held or short of its bill cycle: accountCycleDay null, no card', value: successExample(NEVER_ACTIVATED('ofacReview')) },
};
