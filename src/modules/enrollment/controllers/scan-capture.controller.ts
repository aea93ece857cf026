import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, successExample } from '../../../common/openapi/api-answers';
import { ScanCaptureResponseDto } from '../dtos/scan-capture-response.dto';
import { RequiresScopes } from '../../../common/auth/decorators';
import { CurrentPrincipal } from '../../../common/auth/principal.decorator';
import { Principal } from '../../../common/context/request-context';
import { ScanCaptureDto } from '../dtos/scan-capture.dto';
import { ScanCaptureService } from '../services/scan-capture.service';
import { NoQuery } from '../../../common/validation/validate-only';

export const SCAN_CAPTURE_ROUTE = '/v1/kycGates/scanCapture';
/** CONTRACT section 6: this route takes bodies up to 10 MiB (identity document images); every other one 64 KiB. */
export const SCAN_CAPTURE_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

@ApiTags('enrollments')
@Controller(SCAN_CAPTURE_ROUTE)
@RequiresScopes('enrollments')
export class ScanCaptureController {
  constructor(private readonly scans: ScanCaptureService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'scanCapture',
    summary: 'Scan a Matricula Consular ID before a Matricula enrollment',
    description:
      'Yields an onboardingID usable by one enrollment of the same partner and program within 24 hours. ' +
      "programCode must be one of the partner's programs (403/403/2) with Matricula enrollment enabled (else 400/100/5 naming " +
      'programCode: a value outside its allowed set). Images are checked, not kept.',
  })
  @ApiBody({
    type: ScanCaptureDto,
    examples: {
      matricula: {
        summary: 'Front and back images of a Matricula Consular (base64; up to 10 MiB in all)',
        value: {
          programCode: 'sandbox',
          idType: 'matricula',
          idNumber: 'A1234567',
          issuingCountry: 'MX',
          frontImage: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
          backImage: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
        },
      },
    },
  })
  @ApiAnswer(ScanCaptureResponseDto, 'The scan is completed; its onboardingID enrolls once within 24 hours', {
    completed: { summary: 'Scan completed', value: successExample({ onboardingID: '3f2b8c4e-5a61-4d0e-9b7a-1c2d3e4f5a6b', status: 'completed' }) },
  })
  @ApiErrors(
    { 400: ['MALFORMED_JSON', 'UNKNOWN_PROPERTY', 'REQUIRED_FIELD_MISSING', 'INVALID_FIELD'], 413: ['BODY_TOO_LARGE_10_MIB'] },
    { 400: 'Malformed fields (100/5), missing fields (200/0)', 413: 'Body over 10 MiB' },
  )
  capture(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ScanCaptureDto,
    @NoQuery() _query: undefined,
  ): Promise<{ onboardingID: string; status: string }> {
    return this.scans.capture(principal, body);
  }
}
