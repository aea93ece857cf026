import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsOptional, IsString } from 'class-validator';
import { REQUEST_ID_PATTERN } from '../../../common/context/request-context';
import { FieldRules, matches, oneOf, unstated } from '../../../common/validation/field-rules';
import { EVENT_TYPES, EventType } from '../../events/event-types';

export class SendTestWebhookDto {
  @IsOptional()
  @FieldRules({ required: false, description: 'Correlation id echoed as the response requestId' }, unstated(IsString()), matches(REQUEST_ID_PATTERN))
  requestId?: string;

  @FieldRules({ description: 'Any of the 13 event types; else 400 (code 100, subCode 5)' }, unstated(IsDefined()), oneOf(EVENT_TYPES))
  eventType: EventType;

  @ApiPropertyOptional({ description: "One of the partner's programs (403/403/2 otherwise); defaults to the partner's first program" })
  @IsOptional()
  @IsString()
  programCode?: string;
}
