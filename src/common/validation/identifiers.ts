const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether an identifier from a path or body has the shape of the uuid columns it is looked up in
 * (any version): anything else is simply not found, and never reaches PostgreSQL, which would
 * refuse the cast with an error instead.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
