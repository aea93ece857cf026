import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresScopes } from '../../../common/auth/decorators';
import { CurrentPrincipal } from '../../../common/auth/principal.decorator';
import { Principal } from '../../../common/context/request-context';
import { ScanCaptureDto } from '../dtos/scan-capture.dto';
import { ScanCaptureService } from '../services/scan-capture.service';

@ApiTags('enrollments')
@Controller('v1/kycGates/scanCapture')
@RequiresScopes('enrollments')
export class ScanCaptureController {
  constructor(private readonly scans: ScanCaptureService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Scan a Matricula Consular ID before a Matricula enrollment',
    description:
      'Yields an onboardingID usable by one enrollment of the same partner and program within 24 hours. ' +
      'programCode must be one of the partner\'s programs (403/403/2) with Matricula enrollment enabled (else 400/100/5 naming ' +
      'programCode: a value outside its allowed set). Images are checked, not kept.',
  })
  @ApiOkResponse({ description: '{ requestId, responseDetails, onboardingID, status: "completed" }' })
  @ApiBadRequestResponse({ description: 'Malformed fields (100/5), missing fields (200/0)' })
  capture(@CurrentPrincipal() principal: Principal, @Body() body: ScanCaptureDto): Promise<{ onboardingID: string; status: string }> {
    return this.scans.capture(principal, body);
  }
}
