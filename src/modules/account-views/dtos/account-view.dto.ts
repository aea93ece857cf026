import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { EnvelopeDto } from '../../../common/openapi/envelope.dto';
import { UserViewDto } from '../../user/dtos/user-view.dto';

@ApiSchema({ name: 'Purse', description: 'A balance container; every account has one primary purse.' })
export class PurseViewDto {
  @ApiProperty({ example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) purseIdentifier: string;
  @ApiProperty({ example: 'primary' }) purseType: string;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ description: 'Decimal string', example: '0.00' }) availableBalance: string;
  @ApiProperty({ description: 'Decimal string', example: '0.00' }) ledgerBalance: string;
}

@ApiSchema({ name: 'Account' })
export class AccountDataViewDto {
  @ApiProperty({ example: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }) accountIdentifier: string;
  @ApiProperty({ example: 'sandbox' }) programCode: string;
  @ApiProperty({ enum: ['consumer', 'business'], example: 'consumer' }) accountType: string;
  @ApiProperty({ enum: ['pending', 'normal', 'locked', 'closed'], example: 'normal' }) status: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'e.g. ofacReview, underReview, careLock, fraudBlock, limitExceeded', example: null })
  statusReason: string | null;
  @ApiProperty({ enum: ['none', 'manual'], example: 'none', description: 'Also called cure' }) kycPendingGate: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 28, nullable: true, example: 21, description: 'null only while the account was never activated' })
  accountCycleDay: number | null;
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:00:01.123Z' }) createdDateTime: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-21T10:00:01.123Z' }) activatedDateTime: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null }) closedDateTime: string | null;
  @ApiProperty({ type: [PurseViewDto] }) purses: PurseViewDto[];
  @ApiPropertyOptional({
    description:
      'JWE compact (ECDH-ES/A256GCM) to the partner key; encryption partners only, omitted otherwise. Its plaintext is the JSON ' +
      'object { accountHolder: { firstName, middleName (when given), lastName }, directDeposit: { routingNumber, accountNumber } }: ' +
      "the account holder as enrolled and the account's direct deposit numbers (ABA routing number, account number, both strings)",
    example: 'eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTI1NkdDTSJ9..',
  })
  encryptedAccountData?: string;
}

@ApiSchema({ name: 'PaymentInstrument' })
export class PaymentInstrumentViewDto {
  @ApiProperty({ example: '9b2f6c1e-3d0a-4a53-8d7e-2f1c0b6e4a11' }) paymentIdentifier: string;
  @ApiProperty({ example: 'virtual' }) type: string;
  @ApiProperty({ enum: ['active', 'inactive', 'blocked', 'replaced', 'closed'], example: 'active' }) status: string;
  @ApiProperty({ pattern: '^[0-9]{4}$', example: '1234' }) last4: string;
  @ApiProperty({ description: 'YYYY-MM', example: '2030-11' }) expirationDate: string;
  @ApiProperty({ example: 'JOSE NUNEZ' }) embossedName: string;
  @ApiPropertyOptional({ description: 'Business accounts only', example: 'ACME TACOS LLC' }) embossedBusinessName?: string;
}

/** Enrollment, GET account and care answers: the account, its primary user and its cards. */
@ApiSchema({
  name: 'AccountResponse',
  description:
    'Success, or a HTTP 200 decline: an OFAC hold (5/370: account pending/ofacReview, paymentInstruments []), an account-limit decline ' +
    '(2/60, 2/61, 2/63, 2/66) with your most recent active enrollment of that key when the date of birth matches, or alone.',
})
export class AccountResponseDto extends EnvelopeDto {
  @ApiPropertyOptional({ type: AccountDataViewDto, description: 'Absent only on a limit decline answered alone' }) account?: AccountDataViewDto;
  @ApiPropertyOptional({ type: UserViewDto, description: 'Absent only on a limit decline answered alone' }) user?: UserViewDto;
  @ApiPropertyOptional({
    type: [PaymentInstrumentViewDto],
    description: '[] while the account was never activated; absent only on a limit decline answered alone',
  })
  paymentInstruments?: PaymentInstrumentViewDto[];
}
