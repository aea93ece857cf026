import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsOptional, IsString, Matches } from 'class-validator';
import { REQUEST_ID_PATTERN } from '../../../common/context/request-context';

/** Optional body of every care operation: a correlation id only. */
export class CareActionDto {
  @ApiPropertyOptional({ description: 'Correlation id echoed as the response requestId', pattern: REQUEST_ID_PATTERN.source })
  @IsOptional()
  @IsString()
  @Matches(REQUEST_ID_PATTERN)
  requestId?: string;
}

export class RemoveFraudBlockDto extends CareActionDto {
  /**
   * Any JSON value passes the body's rules: production accepts and ignores it, whatever it is
   * (CONTRACT section 12: never an error); the sandbox takes a non-negative integer, else 400/100/5
   * (`sandboxUnblockFailures` in card-unblock.service.ts).
   */
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description:
      'Sandbox: the first N of the 3 automatic unblock attempts fail (3 or more: all of them); another value is 400/100/5. ' +
      'Accepted and ignored in production, whatever its value.',
  })
  @Allow()
  sandboxUnblockFailures?: unknown;
}
