import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Min } from 'class-validator';
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
  @ApiPropertyOptional({
    minimum: 0,
    description: 'Sandbox: the first N of the 3 automatic unblock attempts fail (3 or more: all of them). Accepted and ignored in production.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  sandboxUnblockFailures?: number;
}
