import { ApiProperty } from '@nestjs/swagger';
import { ResponseDetailItem } from '../../common/http/response-detail.dto';

export class RemovedCounts {
  @ApiProperty({
    example: 12,
    description: 'Accounts removed, with their purses, cards, limit keys, business profiles, enrollment progress and care audit rows',
  })
  accounts: number;
  @ApiProperty({ example: 12, description: 'Users removed, with their addresses and phones' }) users: number;
}

export class SandboxResetResponse {
  @ApiProperty({ example: 'a3f0c2d4-5b6e-4f70-8a91-b2c3d4e5f607' }) requestId: string;
  @ApiProperty({ type: [ResponseDetailItem], example: [{ code: 0, subCode: 0, description: 'Success' }] }) responseDetails: ResponseDetailItem[];
  @ApiProperty({ type: RemovedCounts }) removed: RemovedCounts;
}
