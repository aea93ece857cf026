import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { EnvelopeDto } from '../../../common/openapi/envelope.dto';

/** The user as partners see it (PUT user, POST identity, GET users, and the user of an account answer). */
@ApiSchema({ name: 'User' })
export class UserViewDto {
  @ApiProperty({ example: '16fd2706-8baf-433b-82eb-8c7fada847da' }) userIdentifier: string;
  @ApiProperty({ example: true }) isPrimaryAccountHolder: boolean;
  @ApiProperty({ example: 'active' }) status: string;
  @ApiPropertyOptional({
    description: 'JWE compact (ECDH-ES/A256GCM) of the user data; encryption partners only, omitted otherwise',
    example: 'eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTI1NkdDTSJ9..',
  })
  encryptedUserData?: string;
}

@ApiSchema({ name: 'UserResponse', description: 'Success with the user, or a HTTP 200 decline (5/362 locked account, 2/6x limits, 5/380, 5/381) without it.' })
export class UserResponseDto extends EnvelopeDto {
  @ApiPropertyOptional({ type: UserViewDto, description: 'Absent on a decline' }) user?: UserViewDto;
}

@ApiSchema({ name: 'UsersResponse' })
export class UsersResponseDto extends EnvelopeDto {
  @ApiProperty({ type: [UserViewDto], description: 'Primary user first' }) users: UserViewDto[];
}
