import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, EXAMPLE_BASE_URL, successExample } from '../../common/openapi/api-answers';
import { Public } from '../../common/auth/decorators';
import { documentedCatalogue, publicCatalogue, PublicError } from '../../common/errors/public-catalogue';
import { AppConfig } from '../../config/app-config';
import { ErrorCatalogueResponse } from './error-docs.dto';
import { ERROR_PAGE_CSP, renderErrorPage } from './error-page';
import { NO_QUERY, NoQuery } from '../../common/validation/validate-only';

/** CONTRACT section 11: the error catalogue as JSON and as a page, both from the one catalogue, no token. */
@ApiTags('partner tools')
@Controller()
@Public()
export class ErrorDocsController {
  private readonly errors: PublicError[];
  private readonly page: string;

  constructor(config: AppConfig) {
    this.errors = publicCatalogue(config.env.publicUrl);
    this.page = renderErrorPage(documentedCatalogue(config.env.publicUrl));
  }

  @Get('v1/errors')
  @ApiOperation({
    operationId: 'listErrors',
    security: [],
    summary: 'Every error and decline the API answers with (no token needed)',
    description:
      'One entry per distinct (httpStatus, code, subCode): causes that share a triple share an entry, ' +
      'whose description lists each of them ("; "-separated). Business declines (code 2 and code 5) have httpStatus 200. ' +
      'docUrl is the entry on /docs/errors, the same link every non-success responseDetails item carries.',
  })
  @ApiAnswer(ErrorCatalogueResponse, 'One entry per distinct (httpStatus, code, subCode)', {
    catalogue: {
      summary: 'Two of the entries',
      value: successExample({
        errors: [
          { httpStatus: 400, code: 640, subCode: 504, description: 'city contains invalid characters', docUrl: `${EXAMPLE_BASE_URL}/docs/errors#640-504` },
          { httpStatus: 200, code: 5, subCode: 370, description: 'Enrollment is held for OFAC review', docUrl: `${EXAMPLE_BASE_URL}/docs/errors#5-370` },
        ],
      }),
    },
  })
  @ApiErrors({ 400: ['UNKNOWN_PROPERTY'] }, { 400: NO_QUERY })
  list(@NoQuery() _query: undefined): { errors: PublicError[] } {
    return { errors: this.errors };
  }

  @Get('docs/errors')
  @ApiOperation({ operationId: 'errorsPage', security: [], summary: 'The error catalogue as an HTML page; each row anchored id="{code}-{subCode}"' })
  @ApiOkResponse({
    description: 'HTML page',
    content: {
      'text/html': {
        schema: { type: 'string' },
        example: '<tr id="640-504"><td>400</td><td>640</td><td>504</td><td>city contains invalid characters</td></tr>',
      },
    },
  })
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', ERROR_PAGE_CSP)
  @Header('cache-control', 'public, max-age=300')
  html(): string {
    // Text with its own Content-Type: Fastify sends it as it is (no envelope).
    return this.page;
  }
}
