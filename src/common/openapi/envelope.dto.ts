import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

/** One item of `responseDetails`: the governing detail first, then one per failed field. */
@ApiSchema({
  name: 'ResponseDetail',
  description: 'code 0/subCode 0 is success; any other code is an error or a decline (see GET /v1/errors and the error catalogue).',
})
export class ResponseDetailDto {
  @ApiProperty({ type: 'integer', example: 0, description: '0 success; 2 account-limit decline and 5 business decline (HTTP 200); anything else an error' })
  code: number;

  @ApiProperty({ type: 'integer', example: 0 })
  subCode: number;

  @ApiProperty({ example: 'Success' })
  description: string;

  @ApiPropertyOptional({ description: 'JSON path of the failed field (validation details)', example: 'encryptedUserData.addresses[0].city' })
  field?: string;

  @ApiPropertyOptional({
    format: 'uri',
    description: 'Every detail of a non-success answer links to its explanation: {server URL}/docs/errors#{code}-{subCode}',
    example: 'https://sandbox.example.com/docs/errors#400-504',
  })
  docUrl?: string;
}

/** The error or decline detail: never code 0. */
@ApiSchema({ name: 'ErrorDetail' })
export class ErrorDetailDto extends ResponseDetailDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 400, description: 'Never 0: an error or a decline' })
  declare code: number;

  @ApiProperty({ example: 'city min or max length' })
  declare description: string;
}

/** Every error answer (4xx, 5xx): the envelope with the governing detail first, and nothing else. */
@ApiSchema({ name: 'ErrorEnvelope', description: 'The body of every error answer under /v1 and /health.' })
export class ErrorEnvelopeDto {
  @ApiProperty({
    description: "The body's requestId, else the request's X-Request-Id, else a generated id (also in X-Request-Id)",
    example: 'req-20261121-0001',
  })
  requestId: string;

  @ApiProperty({ type: [ErrorDetailDto], minItems: 1 })
  responseDetails: ErrorDetailDto[];
}

/** The envelope of a success answer; resource answers extend it with their data. */
@ApiSchema({ name: 'Envelope' })
export class EnvelopeDto {
  @ApiProperty({
    description: "The body's requestId, else the request's X-Request-Id, else a generated id (also in X-Request-Id)",
    example: 'req-20261121-0001',
  })
  requestId: string;

  @ApiProperty({
    type: [ResponseDetailDto],
    minItems: 1,
    description: 'Success: exactly [{code 0, subCode 0, description "Success"}]. A 200 decline puts its detail first (code 2 or 5).',
  })
  responseDetails: ResponseDetailDto[];
}
