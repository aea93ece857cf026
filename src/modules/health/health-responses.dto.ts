import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EnvelopeDto } from '../../common/openapi/envelope.dto';

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
