import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBase64, IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { REQUEST_ID_PATTERN } from '../../../common/context/request-context';
import { IsIsoCountry } from '../../../common/validation/codes';

export const SCAN_ID_TYPES = ['matricula'] as const;

/** POST /v1/kycGates/scanCapture: the images are checked and not kept; the number is stored encrypted. */
export class ScanCaptureDto {
  @ApiPropertyOptional({ description: 'Optional correlation id, echoed as the envelope requestId' })
  @IsOptional()
  @Matches(REQUEST_ID_PATTERN)
  @IsString()
  requestId?: string;

  @ApiProperty({ description: 'A program of the partner with Matricula enrollment enabled (else 403/403/2)', example: 'sandbox' })
  @MaxLength(64)
  @IsString()
  programCode: string;

  @ApiProperty({ enum: SCAN_ID_TYPES })
  @IsIn(SCAN_ID_TYPES)
  idType: (typeof SCAN_ID_TYPES)[number];

  @ApiProperty({ description: 'The document number, 4 to 20 letters or digits' })
  @Matches(/^[A-Za-z0-9]{4,20}$/)
  @IsString()
  idNumber: string;

  @ApiProperty({ description: 'ISO 3166-1 alpha-2 or alpha-3', example: 'MX' })
  @IsIsoCountry()
  issuingCountry: string;

  @ApiProperty({ description: 'Base64 image of the front of the document', minLength: 1 })
  @IsNotEmpty()
  @IsBase64()
  @IsString()
  frontImage: string;

  @ApiPropertyOptional({ description: 'Base64 image of the back of the document', minLength: 1 })
  @IsOptional()
  @IsNotEmpty()
  @IsBase64()
  @IsString()
  backImage?: string;
}
