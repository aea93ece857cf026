/** The one function used from ecdsa-sig-formatter (1.0.11 ships no types). */
declare module 'ecdsa-sig-formatter' {
  /** A DER ECDSA signature as the JWS r‖s form, base64url encoded. */
  export function derToJose(signature: Buffer | string, alg: 'ES256' | 'ES384' | 'ES512'): string;
}
