import { ApiProperty } from '@nestjs/swagger';
import { EnvelopeDto } from '../../common/openapi/envelope.dto';

export class RemovedCounts {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 12,
    description: 'Accounts removed, with their purses, cards, limit keys, business profiles, enrollment progress and care audit rows',
  })
  accounts: number;
  @ApiProperty({ type: 'integer', minimum: 0, example: 12, description: 'Users removed, with their addresses and phones' }) users: number;
}

export class SandboxResetResponse extends EnvelopeDto {
  @ApiProperty({ type: RemovedCounts }) removed: RemovedCounts;
}
