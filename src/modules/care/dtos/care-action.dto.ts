import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
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
    maximum: 10,
    description: 'Sandbox only (refused as an unknown property in production): the first N unblock attempts fail.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10)
  sandboxUnblockFailures?: number;
}
