import { ApiProperty } from '@nestjs/swagger';
import { EnvelopeDto } from '../../common/openapi/envelope.dto';

export class ErrorCatalogueEntry {
  @ApiProperty({ type: 'integer', example: 400, description: 'HTTP status the error is answered with (200 for business declines)' }) httpStatus: number;
  @ApiProperty({ type: 'integer', example: 640 }) code: number;
  @ApiProperty({ type: 'integer', example: 504 }) subCode: number;
  @ApiProperty({ example: 'city contains invalid characters', description: 'Every description this triple is answered with, separated by "; "' })
  description: string;
  @ApiProperty({ format: 'uri', example: 'https://sandbox.example.com/docs/errors#640-504' }) docUrl: string;
}

export class ErrorCatalogueResponse extends EnvelopeDto {
  @ApiProperty({
    type: [ErrorCatalogueEntry],
    example: [
      { httpStatus: 400, code: 640, subCode: 504, description: 'city contains invalid characters', docUrl: 'https://sandbox.example.com/docs/errors#640-504' },
    ],
  })
  errors: ErrorCatalogueEntry[];
}
