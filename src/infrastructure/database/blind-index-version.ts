import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { KeyStore } from '../crypto/key-store';

export const BLIND_INDEX_PURPOSE = 'blind_index';

export class BlindIndexKeyMismatchError extends Error {}

/**
 * At start: the blind-index key of SERVICE_KEYS must be the one the stored `_bidx` columns were
 * computed under (recorded in `key_versions`; the first start records its own). Serving with
 * another key would let every limit count and look-up miss without an error.
 */
@Injectable()
export class BlindIndexVersionCheck implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: KeyStore,
  ) {}

  async onModuleInit(): Promise<void> {
    const current = this.keys.blindIndexKeyId;
    const rows = (await this.dataSource.query(
      `with adopted as (insert into key_versions (purpose, key_id) values ($1, $2) on conflict (purpose) do nothing returning key_id)
       select key_id from adopted union all select key_id from key_versions where purpose = $1`,
      [BLIND_INDEX_PURPOSE, current],
    )) as Array<{ key_id: string }>;
    const stored = rows[0]?.key_id;
    if (stored !== current) {
      throw new BlindIndexKeyMismatchError(
        `SERVICE_KEYS blindIndexKey (${current}) is not the key the stored blind indexes were computed under (${stored}): ` +
          'run npm run keys:reindex with these SERVICE_KEYS (the old key in previousBlindIndexKeys) before serving',
      );
    }
  }
}
