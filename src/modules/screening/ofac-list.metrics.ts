import { Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../../infrastructure/metrics/metrics';
import { OfacScreeningService } from './ofac-screening.service';

/** The OFAC list in use: its size (SDN individuals), when it was loaded and when its files were modified; 0 for each without a list. */
@Injectable()
export class OfacListMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly screening: OfacScreeningService,
  ) {}

  onModuleInit(): void {
    this.metrics.observe('ofac_list_entries', 'SDN individuals in the OFAC list in use (0 without a list)', [], () => [
      { value: this.screening.loadedList()?.entries ?? 0 },
    ]);
    this.metrics.observe('ofac_list_loaded_timestamp_seconds', 'When the OFAC list in use was loaded, Unix seconds (0 without a list)', [], () => [
      { value: (this.screening.loadedList()?.loadedAt.getTime() ?? 0) / 1000 },
    ]);
    // Its files' own age, which a restart does not reset: a feed that stopped shows here (OfacListStale).
    this.metrics.observe(
      'ofac_list_file_timestamp_seconds',
      "When the OFAC list in use was last modified (its files' newest mtime), Unix seconds (0 without a list)",
      [],
      () => [{ value: (this.screening.loadedList()?.modifiedAt.getTime() ?? 0) / 1000 }],
    );
  }
}
