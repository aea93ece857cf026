import { applyDecorators } from '@nestjs/common';
import * as fs from 'node:fs';
import { createPublicKey, JsonWebKey } from 'node:crypto';
import { plainToInstance, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Min,
  MinLength,
  ValidateNested,
  validateSync,
  ValidationError,
} from 'class-validator';
import { code as currencyByCode } from 'currency-codes';
import { parseScryptPhc, ScryptPhc } from './scrypt-phc';

export const SCOPES = ['enrollments', 'users', 'business_profiles', 'identity', 'webhooks', 'care'] as const;
export type Scope = (typeof SCOPES)[number];

/** [active, lifetime]; SERVICE.md's Limits tables are the defaults. */
export type LimitPair = [number, number];
export interface LimitSet {
  ssn: LimitPair;
  itin: LimitPair;
  phone: LimitPair;
}
export const DEFAULT_LIMITS: { consumer: LimitSet; business: LimitSet } = {
  consumer: { ssn: [1, 3], itin: [1, 3], phone: [2, 10] },
  business: { ssn: [10, 20], itin: [10, 20], phone: [10, 20] },
};

class LimitSetDto {
  @IsOptional() @IsArray() @IsInt({ each: true }) @Min(0, { each: true }) ssn?: LimitPair;
  @IsOptional() @IsArray() @IsInt({ each: true }) @Min(0, { each: true }) itin?: LimitPair;
  @IsOptional() @IsArray() @IsInt({ each: true }) @Min(0, { each: true }) phone?: LimitPair;
}

class LimitsDto {
  @IsOptional() @ValidateNested() @Type(() => LimitSetDto) consumer?: LimitSetDto;
  @IsOptional() @ValidateNested() @Type(() => LimitSetDto) business?: LimitSetDto;
}

class ProgramDto {
  @IsString() @Matches(/^[A-Za-z0-9_-]{1,64}$/) programCode: string;
  @IsArray() @ArrayNotEmpty() @IsString({ each: true }) currencies: string[];
  @IsBoolean() kycRequired: boolean;
  @IsOptional() @IsBoolean() kybEnabled?: boolean;
  @IsOptional() @IsBoolean() matriculaEnabled?: boolean;
  @IsOptional() @ValidateNested() @Type(() => LimitsDto) limits?: LimitsDto;
}

class EncryptionDto {
  @IsObject() publicKeyJwk: Record<string, unknown>;
}

class WebhookDto {
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) url: string;
  @IsString() @Matches(/^(whsec_[A-Za-z0-9+/=]+|env:[A-Za-z_][A-Za-z0-9_]*)$/) secret: string;
}

/** Two at once: the old and the new credential while a partner rotates (CONTRACT section 4). */
const MAX_CLIENT_CREDENTIALS = 2;

/** Two secrets (or hashes) per client at most, for rotation without downtime: a non-empty list of non-empty strings. */
const CredentialList = () =>
  applyDecorators(IsOptional(), IsArray(), ArrayNotEmpty(), ArrayMaxSize(MAX_CLIENT_CREDENTIALS), IsString({ each: true }), MinLength(1, { each: true }));

class PartnerDto {
  @IsString() @Matches(/^[A-Za-z0-9._-]{1,64}$/) partnerId: string;
  @IsString() @Matches(/^[A-Za-z0-9._-]{1,128}$/) clientId: string;
  @IsOptional() @IsString() clientSecret?: string;
  @IsOptional() @IsString() clientSecretHash?: string;
  @CredentialList() clientSecrets?: string[];
  @CredentialList() clientSecretHashes?: string[];
  @IsArray() @IsString({ each: true }) programs: string[];
  @IsArray() @IsIn(SCOPES, { each: true }) scopes: Scope[];
  @IsOptional() @ValidateNested() @Type(() => EncryptionDto) encryption?: EncryptionDto | null;
  @IsOptional() @ValidateNested() @Type(() => WebhookDto) webhook?: WebhookDto | null;
}

class ServiceConfigDto {
  @IsArray() @ArrayNotEmpty() @ValidateNested({ each: true }) @Type(() => ProgramDto) programs: ProgramDto[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => PartnerDto) partners: PartnerDto[];
}

export interface ProgramConfig {
  readonly programCode: string;
  readonly currencies: readonly string[];
  readonly kycRequired: boolean;
  readonly kybEnabled: boolean;
  readonly matriculaEnabled: boolean;
  readonly limits: { readonly consumer: LimitSet; readonly business: LimitSet };
}

export interface PartnerConfig {
  readonly partnerId: string;
  readonly clientId: string;
  /** Plain secret (sandbox) or undefined when only a hash is configured. */
  readonly clientSecret?: string;
  /** scrypt PHC string: `$scrypt$ln=14,r=8,p=1$<salt b64>$<hash b64>`. */
  readonly clientSecretHash?: string;
  /** Every accepted plain secret (`clientSecret` or `clientSecrets`), resolved; any one may match. */
  readonly clientSecrets: readonly string[];
  /** Every accepted scrypt PHC (`clientSecretHash` or `clientSecretHashes`); any one may match. */
  readonly clientSecretHashes: readonly string[];
  readonly programs: readonly string[];
  readonly scopes: readonly Scope[];
  readonly encryption: { readonly publicKeyJwk: Record<string, unknown> } | null;
  readonly webhook: { readonly url: string; readonly secret: string } | null;
}

export interface ServiceConfig {
  readonly programs: ReadonlyMap<string, ProgramConfig>;
  readonly partners: readonly PartnerConfig[];
  partnerByClientId(clientId: string): PartnerConfig | undefined;
  partnerById(partnerId: string): PartnerConfig | undefined;
}

/** Node's scrypt defaults (N=2^14, r=8, p=1): the least a production client secret hash may cost (CONTRACT section 12). */
export const DEFAULT_SCRYPT = { ln: 14, r: 8, p: 1 } as const;

/** Whether a scrypt PHC's parameters are below the default (N·r·p or memory N·r). */
function weakerThanDefaultScrypt({ ln, r, p }: ScryptPhc): boolean {
  return 2 ** ln * r < 2 ** DEFAULT_SCRYPT.ln * DEFAULT_SCRYPT.r || 2 ** ln * r * p < 2 ** DEFAULT_SCRYPT.ln * DEFAULT_SCRYPT.r * DEFAULT_SCRYPT.p;
}

export class ServiceConfigError extends Error {}

function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const where = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => `${where}: ${message}`);
    return [...own, ...flatten(error.children ?? [], where)];
  });
}

function resolveSecret(value: string | undefined, where: string, env: NodeJS.ProcessEnv): string | undefined {
  if (value === undefined || !value.startsWith('env:')) return value;
  const name = value.slice(4);
  const resolved = env[name];
  if (!resolved) throw new ServiceConfigError(`${where} refers to env:${name}, which is not set`);
  return resolved;
}

function optionalEntry(value: string | undefined, where: string): Array<{ value: string; where: string }> {
  return value === undefined ? [] : [{ value, where }];
}

function mergeLimits(dto: LimitSetDto | undefined, defaults: LimitSet, where: string): LimitSet {
  const pick = (key: keyof LimitSet): LimitPair => {
    const pair = dto?.[key];
    if (pair === undefined) return defaults[key];
    if (pair.length !== 2 || pair[0] > pair[1]) {
      throw new ServiceConfigError(`${where}.${key} must be [active, lifetime] with active <= lifetime`);
    }
    return [pair[0], pair[1]];
  };
  return { ssn: pick('ssn'), itin: pick('itin'), phone: pick('phone') };
}

/**
 * A partner's key for the answers sealed to it (CONTRACT section 5): an EC P-256 public key whose
 * point is on the curve (node:crypto imports it as every sealing will), without the private `d` or
 * `key_ops`, for encryption when it says what for, its `kid` a string. Checked at start: a key that cannot be imported made every
 * sealed answer of the partner a 500.
 */
function checkEncryptionKey(jwk: Record<string, unknown>, where: string): void {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw new ServiceConfigError(`${where} must be an EC P-256 public key (kty, crv, x, y)`);
  }
  if ('d' in jwk) throw new ServiceConfigError(`${where} must be a public key: it carries the private d`);
  // An ECDH public key has no operations of its own (WebCrypto gives it no usages): jose refuses any list.
  if ('key_ops' in jwk) throw new ServiceConfigError(`${where} must not list key_ops (a public ECDH key has none; use "enc" says what it is for)`);
  if (jwk.kid !== undefined && typeof jwk.kid !== 'string') throw new ServiceConfigError(`${where}.kid must be a string`);
  if (jwk.use !== undefined && jwk.use !== 'enc') throw new ServiceConfigError(`${where} must be for encryption (use "enc" or no use)`);
  try {
    createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch {
    throw new ServiceConfigError(`${where} is not a valid P-256 public key (its point is not on the curve)`);
  }
}

export interface ParseOptions {
  /** Production refuses literal secrets in the file: they must be hashes or env: references. */
  production?: boolean;
}

export function parseServiceConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env, options: ParseOptions = {}): ServiceConfig {
  const dto = plainToInstance(ServiceConfigDto, raw);
  const errors = validateSync(dto as object, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) {
    throw new ServiceConfigError(`Invalid service configuration: ${flatten(errors).join('; ')}`);
  }
  const programs = new Map<string, ProgramConfig>();
  dto.programs.forEach((program, index) => {
    const where = `programs[${index}] (${program.programCode})`;
    if (programs.has(program.programCode)) throw new ServiceConfigError(`${where}: duplicate programCode`);
    for (const currency of program.currencies) {
      if (!currencyByCode(currency)) throw new ServiceConfigError(`${where}.currencies: ${currency} is not an ISO 4217 code`);
    }
    programs.set(program.programCode, {
      programCode: program.programCode,
      currencies: program.currencies,
      kycRequired: program.kycRequired,
      kybEnabled: program.kybEnabled ?? false,
      matriculaEnabled: program.matriculaEnabled ?? false,
      limits: {
        consumer: mergeLimits(program.limits?.consumer, DEFAULT_LIMITS.consumer, `${where}.limits.consumer`),
        business: mergeLimits(program.limits?.business, DEFAULT_LIMITS.business, `${where}.limits.business`),
      },
    });
  });
  const seenClients = new Set<string>();
  const seenPartners = new Set<string>();
  const partners: PartnerConfig[] = dto.partners.map((partner, index) => {
    const where = `partners[${index}] (${partner.partnerId})`;
    if (seenClients.has(partner.clientId)) throw new ServiceConfigError(`${where}: duplicate clientId`);
    if (seenPartners.has(partner.partnerId)) throw new ServiceConfigError(`${where}: duplicate partnerId`);
    seenClients.add(partner.clientId);
    seenPartners.add(partner.partnerId);
    for (const programCode of partner.programs) {
      if (!programs.has(programCode)) throw new ServiceConfigError(`${where}.programs: unknown program ${programCode}`);
    }
    if (partner.clientSecret !== undefined && partner.clientSecrets !== undefined) {
      throw new ServiceConfigError(`${where}: give clientSecret or clientSecrets, not both`);
    }
    if (partner.clientSecretHash !== undefined && partner.clientSecretHashes !== undefined) {
      throw new ServiceConfigError(`${where}: give clientSecretHash or clientSecretHashes, not both`);
    }
    const secretEntries = partner.clientSecrets
      ? partner.clientSecrets.map((value, i) => ({ value, where: `${where}.clientSecrets[${i}]` }))
      : optionalEntry(partner.clientSecret, `${where}.clientSecret`);
    const hashEntries = partner.clientSecretHashes
      ? partner.clientSecretHashes.map((value, i) => ({ value, where: `${where}.clientSecretHashes[${i}]` }))
      : optionalEntry(partner.clientSecretHash, `${where}.clientSecretHash`);
    for (const entry of secretEntries) {
      if (options.production && !entry.value.startsWith('env:')) {
        throw new ServiceConfigError(`${entry.where}: APP_MODE=production refuses literal secrets; use clientSecretHash or env:NAME`);
      }
    }
    if (options.production && partner.webhook && !partner.webhook.secret.startsWith('env:')) {
      throw new ServiceConfigError(`${where}.webhook.secret: APP_MODE=production refuses literal secrets; use env:NAME`);
    }
    // CONTRACT section 7: the payload and its signature travel only over TLS to a bank's partner.
    if (options.production && partner.webhook && !partner.webhook.url.startsWith('https://')) {
      throw new ServiceConfigError(`${where}.webhook.url: APP_MODE=production needs an https URL`);
    }
    // An empty single value was always taken as absent; the arrays refuse empty entries.
    const present = (entry: { value: string }) => entry.value !== '';
    const clientSecrets = secretEntries.filter(present).map((entry) => resolveSecret(entry.value, entry.where, env) as string);
    const hashes = hashEntries.filter(present).map((entry) => ({ ...entry, value: resolveSecret(entry.value, entry.where, env) as string }));
    const clientSecretHashes = hashes.map((entry) => entry.value);
    if (clientSecrets.length + clientSecretHashes.length === 0) {
      throw new ServiceConfigError(`${where}: one of clientSecret or clientSecretHash is required`);
    }
    if (clientSecrets.length + clientSecretHashes.length > MAX_CLIENT_CREDENTIALS) {
      throw new ServiceConfigError(`${where}: at most ${MAX_CLIENT_CREDENTIALS} secrets and hashes together (one old, one new while rotating)`);
    }
    for (const hash of hashes) {
      const phc = parseScryptPhc(hash.value);
      if ('refused' in phc) throw new ServiceConfigError(`${hash.where} ${phc.refused}`);
      if (options.production && weakerThanDefaultScrypt(phc)) {
        throw new ServiceConfigError(
          `${hash.where}: APP_MODE=production refuses a scrypt cost below the default (ln=${DEFAULT_SCRYPT.ln},r=${DEFAULT_SCRYPT.r},p=${DEFAULT_SCRYPT.p})`,
        );
      }
    }
    const jwk = partner.encryption?.publicKeyJwk;
    if (jwk) checkEncryptionKey(jwk, `${where}.encryption.publicKeyJwk`);
    return {
      partnerId: partner.partnerId,
      clientId: partner.clientId,
      clientSecret: partner.clientSecret === undefined ? undefined : clientSecrets[0],
      clientSecretHash: partner.clientSecretHash === undefined ? undefined : clientSecretHashes[0],
      clientSecrets,
      clientSecretHashes,
      programs: partner.programs,
      scopes: partner.scopes,
      encryption: jwk ? { publicKeyJwk: jwk } : null,
      webhook: partner.webhook ? { url: partner.webhook.url, secret: resolveSecret(partner.webhook.secret, `${where}.webhook.secret`, env) as string } : null,
    };
  });
  const byClient = new Map(partners.map((p) => [p.clientId, p]));
  const byId = new Map(partners.map((p) => [p.partnerId, p]));
  return {
    programs,
    partners,
    partnerByClientId: (clientId) => byClient.get(clientId),
    partnerById: (partnerId) => byId.get(partnerId),
  };
}

export function loadServiceConfig(file: string, env: NodeJS.ProcessEnv = process.env, options: ParseOptions = {}): ServiceConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ServiceConfigError(`SERVICE_CONFIG file ${file} cannot be read`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ServiceConfigError(`SERVICE_CONFIG file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return parseServiceConfig(raw, env, options);
}
