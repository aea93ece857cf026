import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, successExample, VALID_ONLY_EXAMPLE } from '../../../common/openapi/api-answers';
import { BusinessProfileResponseDto } from '../dtos/business-data-view.dto';
import { RequiresScopes } from '../../../common/auth/decorators';
import { CurrentPrincipal } from '../../../common/auth/principal.decorator';
import { Principal } from '../../../common/context/request-context';
import { validatedOnly, ValidatedOnly } from '../../../common/http/answer';
import { ValidateOnly } from '../../../common/validation/validate-only';
import { UpdateBusinessProfileRequestDto } from '../dtos/business-data-update.dto';
import { BusinessDataView } from '../services/business-profile.codec';
import { BusinessProfileService } from '../services/business-profile.service';
import { ApiLocked } from '../../locking/lock-on.decorator';
import { NO_QUERY, NoQuery } from '../../../common/validation/validate-only';

const BUSINESS_DATA_EXAMPLE = {
  businessName: 'Acme Tacos LLC',
  businessType: 'llc',
  businessTaxID: '6789',
  businessIndustry: '722513',
  addressLine1: '200 Commerce St',
  city: 'Austin',
  businessState: 'TX',
  businessZipCode: '78701',
  businessCountryCode: 'US',
  url: 'https://acmetacos.example.com',
  averageMonthlyProcessingVolume: 25000,
};

const NOT_FOUND =
  '404/10/0 "Account Not Found" for an unknown account or one of another partner or program; ' +
  '404/10/0 "Business profile not found" for an account without a business profile (consumer accounts included).';
const PUT_NOT_FOUND =
  '404/10/0 "Account Not Found" for an unknown account, one of another partner or program, or one without a business profile ' +
  '(consumer accounts included: the update has one not-found answer, for invalid account information).';

@ApiTags('business profile')
@Controller('v1/programs/:programCode/accounts/:accountIdentifier/businessProfile')
@RequiresScopes('business_profiles')
export class BusinessProfileController {
  constructor(private readonly businessProfiles: BusinessProfileService) {}

  @Get()
  @ApiOperation({
    operationId: 'getBusinessProfile',
    summary: 'Business data of a business account (plain JSON for every partner; businessTaxID as its last 4 digits)',
  })
  @ApiAnswer(BusinessProfileResponseDto, 'The business data', {
    success: { summary: 'A business profile', value: successExample({ businessData: BUSINESS_DATA_EXAMPLE }) },
  })
  @ApiErrors({ 400: ['UNKNOWN_PROPERTY'], 404: ['ACCOUNT_NOT_FOUND', 'BUSINESS_PROFILE_NOT_FOUND'] }, { 400: NO_QUERY, 404: NOT_FOUND })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Param('accountIdentifier') accountIdentifier: string,
    @NoQuery() _query: undefined,
  ): Promise<{ businessData: BusinessDataView }> {
    return { businessData: await this.businessProfiles.get(principal, programCode, accountIdentifier) };
  }

  @Put()
  @HttpCode(200)
  @ApiLocked('accountIdentifier')
  @ApiOperation({
    operationId: 'updateBusinessProfile',
    summary: 'Replace the given businessData fields',
    description:
      'Any subset of the enrollment businessData fields, each validated with its enrollment rule; omitted fields are untouched, ' +
      'optional fields sent as null are cleared. The profile must exist: PUT does not create one. ' +
      'A changed businessName is printed on the next card issued by a replacement; the current card keeps its name. ' +
      'Unlike a user update, locked and closed accounts accept the update (the 5/362 decline applies to user profiles only).',
  })
  @ApiBody({
    type: UpdateBusinessProfileRequestDto,
    examples: {
      rename: { summary: 'A new business name (printed on the next replacement card)', value: { businessData: { businessName: 'Acme Tacos and Salsa LLC' } } },
      clearUrl: { summary: 'A new type, and the URL cleared', value: { businessData: { businessType: 'corp', url: null } } },
    },
  })
  @ApiAnswer(BusinessProfileResponseDto, 'The business data after the update', {
    success: { summary: 'Updated', value: successExample({ businessData: { ...BUSINESS_DATA_EXAMPLE, businessName: 'Acme Tacos and Salsa LLC' } }) },
    validateOnly: VALID_ONLY_EXAMPLE,
  })
  @ApiErrors(
    {
      400: [
        'MALFORMED_JSON',
        'UNKNOWN_PROPERTY',
        'REQUIRED_FIELD_MISSING',
        'INVALID_BUSINESS_TYPE',
        'BUSINESS_NAME_LENGTH',
        'BUSINESS_NAME_CHARACTERS',
        'BUSINESS_FIELD_LENGTH',
        'CITY_LENGTH',
        'CITY_CHARACTERS',
        'ADDRESS_LINE1_LENGTH',
        'ADDRESS_LINE1_CHARACTERS',
        'ADDRESS_LINE2_LENGTH',
        'ADDRESS_LINE2_CHARACTERS',
        'INVALID_STATE',
        'INVALID_PHONE',
        'INVALID_FIELD',
        'INVALID_BUSINESS_ZIP',
        'INVALID_URL',
        'INVALID_BUSINESS_EMAIL',
        'INVALID_BUSINESS_COUNTRY',
        'INVALID_PROCESSING_VOLUME',
      ],
      404: ['ACCOUNT_NOT_FOUND'],
    },
    { 400: 'Enrollment KYB rules; businessType outside the list: 400/600/0 "Invalid businessType"', 404: PUT_NOT_FOUND },
  )
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
