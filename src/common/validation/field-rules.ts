import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { IsEmail, IsIn, Length, Matches, MaxLength, MinLength, ValidateBy, ValidationOptions } from 'class-validator';

/** The keywords a rule may state in its field's schema. */
export interface StatedSchema {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: readonly (string | number)[];
  minimum?: number;
}

/**
 * One field rule: the class-validator decorator that enforces it and what it states in the field's
 * OpenAPI schema, made from the same numbers and expression so that the document cannot drift
 * from the check. A check no schema keyword expresses exactly states the closest true thing (a
 * format, a maximum length) or nothing; the field's description says the rest.
 */
export interface FieldRule {
  readonly validator: PropertyDecorator;
  readonly schema: StatedSchema;
}

export const stated = (validator: PropertyDecorator, schema: StatedSchema): FieldRule => ({ validator, schema });

/** A check the schema already says otherwise (its type) or cannot say at all. */
export const unstated = (validator: PropertyDecorator): FieldRule => ({ validator, schema: {} });

export const length = (min: number, max: number, options?: ValidationOptions): FieldRule =>
  stated(Length(min, max, options), { minLength: min, maxLength: max });

export const minLength = (min: number, options?: ValidationOptions): FieldRule => stated(MinLength(min, options), { minLength: min });

export const maxLength = (max: number, options?: ValidationOptions): FieldRule => stated(MaxLength(max, options), { maxLength: max });

/** The expression itself: JSON Schema patterns are ECMA-262 and unanchored, like `RegExp.test`; `u` changes nothing for them. */
export function matches(pattern: RegExp, options?: ValidationOptions): FieldRule {
  return stated(Matches(pattern, options), { pattern: patternSource(pattern) });
}

export const oneOf = (values: readonly (string | number)[], options?: ValidationOptions): FieldRule => stated(IsIn(values, options), { enum: [...values] });

/**
 * Unicode's format characters (category Cf: bidi overrides and isolates such as U+202E, zero-width
 * spaces and joiners, the soft hyphen): invisible, or reordering what follows, they make a value read
 * as another one on a care agent's screen or in a partner's report. isEmail refuses control characters
 * itself, not these.
 */
const FORMAT_CHARACTER = /\p{Cf}/u;

/** What a field's description says of FORMAT_CHARACTER's refusal (the schema has no keyword for it). */
export const NO_FORMAT_CHARACTERS =
  'a value holding an invisible Unicode format character (category Cf, such as U+202E or U+200B) is refused like any invalid one';

/** A free-form text (a URL) without FORMAT_CHARACTER; its description says so (NO_FORMAT_CHARACTERS). */
export const visibleCharacters = (options?: ValidationOptions): FieldRule =>
  unstated(
    ValidateBy({ name: 'visibleCharacters', validator: { validate: (value: unknown) => typeof value === 'string' && !FORMAT_CHARACTER.test(value) } }, options),
  );

/** What an email field's description says beyond `format: email`. */
export const EMAIL_ADDRESS_DESCRIPTION = `An email address; ${NO_FORMAT_CHARACTERS}`;

/**
 * validator.js's isEmail, stated as `format: email`, the closest the schema has: the check also takes
 * a non-ASCII local part (josé@example.com) and refuses a local part over 64 characters. An address
 * holding an invisible format character (FORMAT_CHARACTER) is refused with the same answer.
 */
export const emailAddress = (options?: ValidationOptions): FieldRule =>
  stated(applyDecorators(IsEmail({}, options), visibleCharacters(options).validator), { format: 'email' });

/** A RegExp as a schema pattern; a flag such as `i` or `s` has no place there, so it is refused, not dropped. */
export function patternSource(pattern: RegExp): string {
  if (pattern.flags.replace('u', '') !== '') throw new Error(`${String(pattern)}: a schema pattern has no flags`);
  return pattern.source;
}

/**
 * The field's `@ApiProperty` with what each rule states, and the rules' validators in reading order:
 * the first listed governs when several fail, as with stacked decorators (the validation pipe takes
 * the top-most keyed constraint, i.e. the last registered). `api` holds what no rule states (type,
 * example, description, required); a keyword stated twice is a mistake and fails at load.
 */
export function FieldRules(api: ApiPropertyOptions, ...rules: FieldRule[]): PropertyDecorator {
  const schema: Record<string, unknown> = {};
  for (const [keyword, value] of rules.flatMap((rule) => Object.entries(rule.schema))) {
    if (keyword in schema || keyword in api) throw new Error(`field rules state ${keyword} twice`);
    schema[keyword] = value;
  }
  return applyDecorators(ApiProperty({ ...api, ...schema } as ApiPropertyOptions), ...rules.map((rule) => rule.validator).reverse());
}
