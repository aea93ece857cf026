import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EnvelopeDto } from '../../../common/openapi/envelope.dto';

@ApiSchema({ name: 'ScanCaptureResponse' })
export class ScanCaptureResponseDto extends EnvelopeDto {
  @ApiProperty({ description: 'Usable by one enrollment of the same partner and program within 24 hours', example: '3f2b8c4e-5a61-4d0e-9b7a-1c2d3e4f5a6b' })
  onboardingID: string;

  @ApiProperty({ enum: ['completed'], example: 'completed' }) status: string;
}
