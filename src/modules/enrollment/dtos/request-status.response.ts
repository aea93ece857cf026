import { ApiProperty } from '@nestjs/swagger';
import { EnvelopeDto } from '../../../common/openapi/envelope.dto';

export class EnrollmentRequestView {
  @ApiProperty({ example: 'req-2026-11-23-0001' }) requestId: string;
  @ApiProperty({
    enum: ['inProgress', 'completed', 'declined', 'held', 'incomplete'],
    example: 'completed',
    description:
      "inProgress: a call with this requestId is running now; completed: a final answer of code 0 is stored (by care's action for an enrollment care cleared of its OFAC hold, or closed before it finished); " +
      'declined: a limit decline is stored (also at the clearance, when the key filled its limit while the enrollment was held); held: OFAC review, no answer stored until care clears it; ' +
      'incomplete: stopped short (e.g. bill cycle), the identical retry resumes it',
  })
  state: string;
  @ApiProperty({
    example: '2026-11-23T10:00:00.000Z',
    format: 'date-time',
    description: "When the requestId's first call began (while that call is still running too)",
  })
  createdDateTime: string;
  @ApiProperty({
    example: '2026-11-23T10:00:00.120Z',
    format: 'date-time',
    description:
      'When the last call with this requestId recorded something (its answer stored, a recovery point reached); while a first call runs, when it began',
  })
  updatedDateTime: string;
}

export class EnrollmentRequestStatusResponse extends EnvelopeDto {
  @ApiProperty({ type: EnrollmentRequestView }) request: EnrollmentRequestView;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'The stored answer body the identical retry replays (the enrollment answer), or null while none is stored',
    example: {
      requestId: 'req-2026-11-23-0001',
      responseDetails: [{ code: 0, subCode: 0, description: 'Success' }],
      account: {},
      user: {},
      paymentInstruments: [],
    },
  })
  answer: object | null;
}
