import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { EnvelopeDto } from '../../../common/openapi/envelope.dto';

@ApiSchema({ name: 'CardSnapshot' })
export class CardSnapshotDto {
  @ApiProperty({ example: '9b2f6c1e-3d0a-4a53-8d7e-2f1c0b6e4a11' }) paymentIdentifier: string;
  @ApiProperty({ example: 'blocked' }) status: string;
}

@ApiSchema({ name: 'AccountSnapshot', description: 'The account state before or after a care action' })
export class AccountSnapshotDto {
  @ApiProperty({ example: 'locked' }) status: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'fraudBlock' }) statusReason: string | null;
  @ApiProperty({ example: 'none' }) kycPendingGate: string;
  @ApiProperty({ type: 'integer', nullable: true, example: 21 }) accountCycleDay: number | null;
  @ApiProperty({ type: [CardSnapshotDto] }) paymentInstruments: CardSnapshotDto[];
}

@ApiSchema({ name: 'StaffIdentity', description: "The care console's signed-in staff member (the identity provider's subject and email)" })
export class StaffIdentityDto {
  @ApiProperty({ example: 'staff-0042' }) subject: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'ana.lopez@bank.example.com' }) email: string | null;
}

@ApiSchema({ name: 'AuditEntry' })
export class AuditEntryDto {
  @ApiProperty({ example: 'fraudBlock' }) action: string;
  @ApiProperty({ description: 'Care client id, plus /<agent> when X-Care-Agent named one', example: 'issuer-care/agent.smith' }) actor: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T11:00:00.000Z' }) at: string;
  @ApiProperty({ type: AccountSnapshotDto }) before: AccountSnapshotDto;
  @ApiProperty({ type: AccountSnapshotDto }) after: AccountSnapshotDto;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} }) detail: Record<string, unknown>;
  @ApiPropertyOptional({ type: StaffIdentityDto, description: 'Console actions and reveals only' }) staff?: StaffIdentityDto;
  @ApiPropertyOptional({ description: 'The reason the staff member gave (console actions only)', example: 'Customer called, identity verified' })
  reason?: string;
}

@ApiSchema({ name: 'AuditTrailResponse' })
export class AuditTrailResponseDto extends EnvelopeDto {
  @ApiProperty({ type: [AuditEntryDto], description: 'Oldest first' }) auditTrail: AuditEntryDto[];
}
