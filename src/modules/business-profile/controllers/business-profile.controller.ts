import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresScopes } from '../../../common/auth/decorators';
import { CurrentPrincipal } from '../../../common/auth/principal.decorator';
import { Principal } from '../../../common/context/request-context';
import { validatedOnly, ValidatedOnly } from '../../../common/http/envelope.interceptor';
import { ValidateOnly } from '../../../common/validation/validate-only';
import { UpdateBusinessProfileRequestDto } from '../dtos/business-data-update.dto';
import { BusinessDataView } from '../services/business-profile.codec';
import { BusinessProfileService } from '../services/business-profile.service';

const NOT_FOUND =
  '404/10/0 "Account Not Found" for an unknown account or one of another partner or program; ' +
  '404/10/0 "Business profile not found" for an account without a business profile (consumer accounts included).';

@ApiTags('business profile')
@Controller('v1/programs/:programCode/accounts/:accountIdentifier/businessProfile')
@RequiresScopes('business_profiles')
export class BusinessProfileController {
  constructor(private readonly businessProfiles: BusinessProfileService) {}

  @Get()
  @ApiOperation({ summary: 'Business data of a business account (plain JSON for every partner; businessTaxID as its last 4 digits)' })
  @ApiOkResponse({ description: '{ requestId, responseDetails, businessData }' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Param('accountIdentifier') accountIdentifier: string,
  ): Promise<{ businessData: BusinessDataView }> {
    return { businessData: await this.businessProfiles.get(principal, programCode, accountIdentifier) };
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Replace the given businessData fields',
    description:
      'Any subset of the enrollment businessData fields, each validated with its enrollment rule; omitted fields are untouched, ' +
      'optional fields sent as null are cleared. The profile must exist: PUT does not create one. ' +
      'A changed businessName is printed on the next card issued by a replacement; the current card keeps its name. ' +
      'Decision where SERVICE.md is silent: locked and closed accounts accept the update (5/362 is a user-profile rule).',
  })
  @ApiOkResponse({ description: '{ requestId, responseDetails, businessData } after the update' })
  @ApiBadRequestResponse({ description: 'Enrollment KYB rules; businessType outside the list: 400/600/0 "Invalid businessType"' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Param('accountIdentifier') accountIdentifier: string,
    @ValidateOnly() validateOnly: boolean,
    @Body() body: UpdateBusinessProfileRequestDto,
  ): Promise<{ businessData: BusinessDataView } | ValidatedOnly> {
    // Every rule of this update that needs no stored data is the DTO's, run by the validation pipe.
    if (validateOnly) return validatedOnly();
    return { businessData: await this.businessProfiles.update(principal, programCode, accountIdentifier, body.businessData) };
  }
}
