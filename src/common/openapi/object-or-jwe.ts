import { Type } from '@nestjs/common';
import { ApiProperty, getSchemaPath } from '@nestjs/swagger';

/** JWE compact serialization: five base64url parts; the encrypted key (second) is empty for ECDH-ES. */
export const COMPACT_JWE_PATTERN = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';

/**
 * A body property a partner sends either as the JSON object or, when configured for encryption,
 * as that object sealed in a compact JWE: OpenAPI says `oneOf` both, so generated clients accept
 * either. The object's schema must be registered with `@ApiExtraModels` on the enclosing DTO.
 */
export const ApiObjectOrJwe = (type: Type<unknown>, description: string) =>
  ApiProperty({
    description,
    // Not the class (Nest would add `allOf` with it, and a string would fail); `oneOf` says what it is.
    type: Object,
    oneOf: [
      { $ref: getSchemaPath(type) },
      {
        type: 'string',
        pattern: COMPACT_JWE_PATTERN,
        description: 'The same object as a compact JWE (ECDH-ES, A256GCM) to the service key with use "enc" of /.well-known/jwks.json',
      },
    ],
  });
