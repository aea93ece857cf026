import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { getMetadataStorage } from 'class-validator';
import { REQUEST_ID_PATTERN } from './common/context/request-context';
import { NAME_PATTERN, ZIP_CODE_PATTERN } from './common/validation/characters';
import { FieldRules, matches, maxLength } from './common/validation/field-rules';
import { ITIN_PATTERN } from './modules/identity/dtos/add-identity.dto';
import { DIGITS_PATTERN } from './modules/business-profile/dtos/business-data.rules';
import { DATE_PATTERN, SSN_PATTERN } from './modules/user/dtos/identifying-data.dto';
import { exportOpenApiDocuments } from './openapi-export';

type Schema = Record<string, unknown>;
type Documents = Awaited<ReturnType<typeof exportOpenApiDocuments>>;

/** Every class a `*.dto.ts` file of src exports, by name: the names the documents give their schemas. */
function dtoClasses(): Map<string, new () => object> {
  const src = __dirname;
  const files = fs
    .readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.dto.ts'))
    .map((file) => path.join(src, file));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exported = files.flatMap((file) => Object.values(require(file) as Record<string, unknown>));
  const classes = exported.filter(
    (value): value is new () => object => typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value)),
  );
  return new Map(classes.map((c) => [c.name, c]));
}

/** What each class-validator rule of these kinds says in JSON Schema terms. */
function expected(name: string, constraints: unknown[]): Schema | undefined {
  switch (name) {
    case 'isLength':
      return { minLength: constraints[0], maxLength: constraints[1] };
    case 'minLength':
      return { minLength: constraints[0] };
    case 'maxLength':
      return { maxLength: constraints[0] };
    case 'matches':
      return { pattern: (constraints[0] as RegExp).source };
    case 'isIn':
      return { enum: constraints[0] };
    case 'lengthIn':
      return { minLength: Math.min(...(constraints as number[])), maxLength: Math.max(...(constraints as number[])) };
    default:
      return undefined;
  }
}

/** `[schema name, property, rule, what the rule says, what the document says]` for every length, pattern and list rule of a documented DTO. */
function ruleRows(documents: Documents): Array<[string, string, string, Schema, Schema]> {
  const classes = dtoClasses();
  const schemas = { ...documents.care.components?.schemas, ...documents.partner.components?.schemas } as Record<
    string,
    { properties?: Record<string, Schema> }
  >;
  return Object.entries(schemas).flatMap(([schemaName, schema]) => {
    const dto = classes.get(schemaName);
    if (!dto) return [];
    return getMetadataStorage()
      .getTargetValidationMetadatas(dto, '', true, false)
      .flatMap((rule) => {
        const says = rule.name ? expected(rule.name, rule.constraints) : undefined;
        if (!says) return [];
        const property = schema.properties?.[rule.propertyName] ?? {};
        const documented = Object.fromEntries(Object.keys(says).map((keyword) => [keyword, property[keyword]]));
        return [[schemaName, rule.propertyName, rule.name as string, says, documented] as [string, string, string, Schema, Schema]];
      });
  });
}

/** Ajv as a generated client would check the document's schemas (OpenAPI 3.0: `nullable`, formats; `example` is no keyword). */
function ajvOf(documents: Documents, which: keyof Documents = 'partner') {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const components = { schemas: documents[which].components?.schemas ?? {} };
  // The components ride along so that "#/components/schemas/X" resolves from the root.
  const compiled = new Map<string, ValidateFunction>();
  return (schema: unknown, value: unknown): boolean => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile({ $id: `urn:field-rules:${compiled.size}`, allOf: [schema], components });
      compiled.set(key, validate);
    }
    return validate(value);
  };
}

describe('the OpenAPI documents state the field rules the validators enforce', () => {
  let documents: Documents;
  const property = (schema: string, name: string) =>
    (documents.partner.components?.schemas?.[schema] as { properties: Record<string, Schema> }).properties[name];

  beforeAll(async () => {
    documents = await exportOpenApiDocuments('http://127.0.0.1:3000');
  });

  it('gives every length, pattern and list rule of a request DTO the same minLength, maxLength, pattern or enum', () => {
    const rows = ruleRows(documents);
    // The check reaches the request bodies of every family, inherited fields (UserNamesDto) included.
    expect(rows.map(([schema, field, rule]) => `${schema}.${field} ${rule}`)).toEqual(
      expect.arrayContaining([
        'BusinessDataDto.businessTaxID isLength',
        'BusinessDataUpdateDto.businessZipCode lengthIn',
        'EnrollmentUserDataDto.firstName minLength',
        'EnrollmentUserDataDto.middleName matches',
        'AddressDto.zipCode matches',
        'IdentifyingDataDto.ssn matches',
        'CreateEnrollmentDto.requestId matches',
        'AddIdentityDto.itin matches',
        'SendTestWebhookDto.eventType isIn',
        'ScanCaptureDto.idNumber matches',
      ]),
    );
    const drifted = rows.filter(([, , , says, documented]) => JSON.stringify(says) !== JSON.stringify(documented));
    expect(drifted).toEqual([]);
  });

  it("states the probe's fields from the validators' own constants", () => {
    expect(property('BusinessDataDto', 'businessTaxID')).toMatchObject({ minLength: 9, maxLength: 9, pattern: DIGITS_PATTERN.source });
    expect(property('BusinessDataDto', 'businessIndustry')).toMatchObject({ minLength: 2, maxLength: 6, pattern: DIGITS_PATTERN.source });
    expect(property('BusinessDataDto', 'businessState')).toMatchObject({ minLength: 2, maxLength: 2, enum: expect.arrayContaining(['TX', 'DC', 'PR']) });
    for (const zip of [property('BusinessDataDto', 'businessZipCode'), property('BusinessDataDto', 'zipCode'), property('AddressDto', 'zipCode')]) {
      expect(zip).toMatchObject({ minLength: 5, maxLength: 10, pattern: ZIP_CODE_PATTERN.source });
    }
    expect(property('EnrollmentUserDataDto', 'firstName')).toMatchObject({ minLength: 1, maxLength: 35, pattern: NAME_PATTERN.source });
    expect(property('EnrollmentUserDataDto', 'middleName')).toMatchObject({ pattern: NAME_PATTERN.source });
    expect(property('CreateEnrollmentDto', 'requestId')).toMatchObject({ pattern: REQUEST_ID_PATTERN.source });
    expect(property('IdentifyingDataDto', 'ssn')).toMatchObject({ pattern: SSN_PATTERN.source });
    expect(property('IdentifyingDataDto', 'dateOfBirth')).toMatchObject({ format: 'date', pattern: DATE_PATTERN.source });
    expect(property('CreateEnrollmentDto', 'termsAcceptanceDateTime')).toMatchObject({ format: 'date-time' });
    expect(property('AddIdentityDto', 'itin')).toMatchObject({ pattern: ITIN_PATTERN.source });
  });

  it.each([
    ['EnrollmentUserDataDto', 'firstName', '', 'José'],
    ['EnrollmentUserDataDto', 'middleName', '', 'A'],
    ['BusinessDataDto', 'businessTaxID', '12345678', '123456789'],
    ['BusinessDataDto', 'businessIndustry', '1234567', '722513'],
    ['BusinessDataDto', 'businessState', 'ZZ', 'TX'],
    ['BusinessDataDto', 'businessZipCode', '787011', '78701-1234'],
    ['AddressDto', 'zipCode', '7870', '78701'],
    ['CreateEnrollmentDto', 'requestId', 'a b', 'req-1.x_Y'],
    ['IdentifyingDataDto', 'ssn', '12345678', '123456789'],
    ['IdentifyingDataDto', 'last4SSN', '12a4', '1234'],
    ['IdentifyingDataDto', 'dateOfBirth', '1990-02-30', '1990-02-28'],
    ['CreateEnrollmentDto', 'termsAcceptanceDateTime', 'yesterday', '2026-11-21T10:00:00+01:00'],
    ['PhoneDto', 'number', '512-555-0100', '5125550100'],
    ['CreateEnrollmentDto', 'currency', 'usd', 'USD'],
    ['AddressDto', 'countryCode', 'us', 'US'],
    ['EmailDto', 'emailAddress', 'jose@', 'jose@example.com'],
    ['AddIdentityDto', 'itin', '812345678', '912345678'],
  ])('%s.%s: a client checking the document refuses %j, as the service does, and takes %j', (schema, name, refused, taken) => {
    const valid = ajvOf(documents);
    expect([valid(property(schema, name), refused), valid(property(schema, name), taken)]).toEqual([false, true]);
  });

  it('has every property example valid against its own schema (request and answer examples: the lint spec, rule no-invalid-media-type-examples)', () => {
    const invalid = (['partner', 'care'] as const).flatMap((which) => {
      const valid = ajvOf(documents, which);
      return Object.entries(documents[which].components?.schemas ?? {}).flatMap(([schemaName, schema]) =>
        Object.entries((schema as { properties?: Record<string, Schema> }).properties ?? {})
          .filter(([, field]) => field.example !== undefined)
          .filter(([, field]) => !valid(field, field.example))
          .map(([name, field]) => `${which} ${schemaName}.${name}: ${JSON.stringify(field.example)}`),
      );
    });
    expect(invalid).toEqual([]);
  });
});

describe(FieldRules.name, () => {
  it('refuses a keyword stated twice, by two rules or by a rule and the ApiProperty options', () => {
    expect(() => FieldRules({}, maxLength(5), maxLength(6))).toThrow('field rules state maxLength twice');
    expect(() => FieldRules({ maxLength: 5 }, maxLength(5))).toThrow('field rules state maxLength twice');
  });

  it('refuses a pattern whose flags a schema pattern cannot carry', () => {
    expect(() => matches(/^[a-z]+$/i)).toThrow('a schema pattern has no flags');
    expect(matches(NAME_PATTERN).schema).toEqual({ pattern: NAME_PATTERN.source });
  });
});
