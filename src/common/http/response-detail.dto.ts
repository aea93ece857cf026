import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One `responseDetails` item as the tools' answers carry it. */
export class ResponseDetailItem {
  @ApiProperty({ example: 0 }) code: number;
  @ApiProperty({ example: 0 }) subCode: number;
  @ApiProperty({ example: 'Success' }) description: string;
  @ApiPropertyOptional({ example: 'encryptedUserData.addresses[0].city', description: 'JSON path of the failed property (validation details)' }) field?: string;
  @ApiPropertyOptional({ example: 'https://api.example.com/docs/errors#640-504', description: 'Every detail of a non-success answer: its row of /docs/errors' })
  docUrl?: string;
}
