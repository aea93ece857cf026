/**
 * A request body as it arrived: its bytes (Nest's body parser keeps them, `rawBody`) and the
 * Content-Type that chose their parser. The same bytes under the same Content-Type parse to the
 * same value, so their digest names a body exactly (the idempotency replay's test of a retry).
 * Plain data, so services may carry it without knowing HTTP.
 */
export interface RequestBytes {
  contentType: string | undefined;
  raw: Buffer | undefined;
}
