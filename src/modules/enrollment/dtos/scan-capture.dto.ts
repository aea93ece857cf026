import { IsBase64, IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { REQUEST_ID_PATTERN } from '../../../common/context/request-context';
import { isoCountry } from '../../../common/validation/codes';
import { FieldRule, FieldRules, matches, maxLength, oneOf, stated, unstated } from '../../../common/validation/field-rules';
import { MATRICULA_NUMBER_PATTERN } from '../../user/dtos/identifying-data.dto';

export const SCAN_ID_TYPES = ['matricula'] as const;

/** A document image: base64 (OpenAPI's format byte), not empty. */
const image = (): FieldRule[] => [stated(IsNotEmpty(), { minLength: 1 }), stated(IsBase64(), { format: 'byte' }), unstated(IsString())];

/** POST /v1/kycGates/scanCapture: the images are checked and not kept; the number is stored encrypted. */
export class ScanCaptureDto {
  @IsOptional()
  @FieldRules({ required: false, description: 'Optional correlation id, echoed as the envelope requestId' }, matches(REQUEST_ID_PATTERN), unstated(IsString()))
  requestId?: string;

  @FieldRules(
    { description: 'A program of the partner (else 403/403/2) with Matricula enrollment enabled (else 400/100/5)', example: 'sandbox' },
    maxLength(64),
    unstated(IsString()),
  )
  programCode: string;

  @FieldRules({}, oneOf(SCAN_ID_TYPES))
  idType: (typeof SCAN_ID_TYPES)[number];

  @FieldRules({ description: 'The document number, 4 to 20 letters or digits' }, matches(MATRICULA_NUMBER_PATTERN), unstated(IsString()))
  idNumber: string;

  @FieldRules({ description: 'An assigned ISO 3166-1 alpha-2 or alpha-3 code, upper case', example: 'MX' }, isoCountry())
  issuingCountry: string;

  @FieldRules({ description: 'Base64 image of the front of the document' }, ...image())
  frontImage: string;

  @IsOptional()
  @FieldRules({ required: false, description: 'Base64 image of the back of the document' }, ...image())
  backImage?: string;
}
