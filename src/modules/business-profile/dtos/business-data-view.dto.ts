import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { EnvelopeDto } from '../../../common/openapi/envelope.dto';
import { BUSINESS_TYPES } from './business-data.rules';

/** businessData as the API shows it: plain JSON for every partner, businessTaxID as its last 4 digits. */
@ApiSchema({ name: 'BusinessData', description: 'Fields not set are omitted.' })
export class BusinessDataViewDto {
  @ApiProperty({ example: 'Acme Tacos LLC' }) businessName: string;
  @ApiProperty({ enum: BUSINESS_TYPES, example: 'llc' }) businessType: string;
  @ApiPropertyOptional({ description: 'Last 4 digits only', example: '6789' }) businessTaxID?: string;
  @ApiProperty({ description: 'NAICS code', example: '722513' }) businessIndustry: string;
  @ApiProperty({ example: '200 Commerce St' }) addressLine1: string;
  @ApiPropertyOptional({ example: 'Suite 5' }) addressLine2?: string;
  @ApiProperty({ example: 'Austin' }) city: string;
  @ApiProperty({ example: 'TX' }) businessState: string;
  @ApiProperty({ example: '78701' }) businessZipCode: string;
  @ApiPropertyOptional({ example: '78701-1234' }) zipCode?: string;
  @ApiProperty({ example: 'US' }) businessCountryCode: string;
  @ApiPropertyOptional({ example: 'https://acmetacos.example.com' }) url?: string;
  @ApiPropertyOptional({ example: 'owner@acmetacos.example.com' }) email?: string;
  @ApiPropertyOptional({ type: 'number', minimum: 0, example: 25000 }) averageMonthlyProcessingVolume?: number;
  @ApiPropertyOptional({ example: '5125550199' }) phoneNumber?: string;
}

@ApiSchema({ name: 'BusinessProfileResponse' })
export class BusinessProfileResponseDto extends EnvelopeDto {
  @ApiPropertyOptional({ type: BusinessDataViewDto, description: 'Absent only on a ?validateOnly=true answer' }) businessData?: BusinessDataViewDto;
}
