import { ApiProperty } from '@nestjs/swagger';
import { ResponseDetailItem } from '../../common/http/response-detail.dto';

export class ErrorCatalogueEntry {
  @ApiProperty({ example: 400, description: 'HTTP status the error is answered with (200 for business declines)' }) httpStatus: number;
  @ApiProperty({ example: 640 }) code: number;
  @ApiProperty({ example: 504 }) subCode: number;
  @ApiProperty({ example: 'city contains invalid characters', description: 'Every description this triple is answered with, separated by "; "' })
  description: string;
  @ApiProperty({ example: 'https://api.example.com/docs/errors#640-504' }) docUrl: string;
}

export class ErrorCatalogueResponse {
  @ApiProperty({ example: 'a3f0c2d4-5b6e-4f70-8a91-b2c3d4e5f607' }) requestId: string;
  @ApiProperty({ type: [ResponseDetailItem], example: [{ code: 0, subCode: 0, description: 'Success' }] }) responseDetails: ResponseDetailItem[];
  @ApiProperty({
    type: [ErrorCatalogueEntry],
    example: [
      { httpStatus: 400, code: 640, subCode: 504, description: 'city contains invalid characters', docUrl: 'https://api.example.com/docs/errors#640-504' },
    ],
  })
  errors: ErrorCatalogueEntry[];
}
