import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EnvelopeDto, ErrorEnvelopeDto } from '../../common/openapi/envelope.dto';

@ApiSchema({ name: 'LiveResponse' })
export class LiveResponseDto extends EnvelopeDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: string;
}

@ApiSchema({ name: 'ReadyResponse' })
export class ReadyResponseDto extends EnvelopeDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: string;
  @ApiProperty({ enum: ['up'], example: 'up' }) database: string;
  @ApiProperty({ enum: ['applied'], example: 'applied' }) migrations: string;
}

/** 503 from /health/ready: the error envelope, and why the instance is not ready. */
@ApiSchema({ name: 'NotReadyResponse' })
export class NotReadyResponseDto extends ErrorEnvelopeDto {
  @ApiProperty({ enum: ['unavailable'], example: 'unavailable' }) status: string;
  @ApiProperty({
    enum: ['up', 'read-only', 'down'],
    example: 'read-only',
    description: 'read-only: the server refuses writes (a standby, or a primary being demoted); down: it could not be reached',
  })
  database: string;
  @ApiProperty({ enum: ['applied', 'pending', 'unknown'], example: 'applied', description: 'unknown: not read, the database being down' })
  migrations: string;
}
