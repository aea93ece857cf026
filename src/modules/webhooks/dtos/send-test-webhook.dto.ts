import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { REQUEST_ID_PATTERN } from '../../../common/context/request-context';
import { EVENT_TYPES, EventType } from '../../events/event-types';

export class SendTestWebhookDto {
  @ApiPropertyOptional({ description: 'Correlation id echoed as the response requestId', pattern: REQUEST_ID_PATTERN.source })
  @IsOptional()
  @IsString()
  @Matches(REQUEST_ID_PATTERN)
  requestId?: string;

  @ApiProperty({ enum: EVENT_TYPES, description: 'Any of the 13 event types; else 400 (code 100, subCode 5)' })
  @IsDefined()
  @IsIn(EVENT_TYPES)
  eventType: EventType;

  @ApiPropertyOptional({ description: "One of the partner's programs (403/403/2 otherwise); defaults to the partner's first program" })
  @IsOptional()
  @IsString()
  programCode?: string;
}
