import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { OfacListMetrics } from './ofac-list.metrics';
import { OfacScreeningService } from './ofac-screening.service';
import { DEFAULT_RELOAD_INTERVAL_MS, OFAC_SCREENING_OPTIONS, OfacScreeningOptions } from './ofac-screening.options';

@Module({
  providers: [
    {
      provide: OFAC_SCREENING_OPTIONS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): OfacScreeningOptions => ({
        listDir: config.env.ofac.listDir,
        matchThreshold: config.env.ofac.matchThreshold,
        reloadIntervalMs: DEFAULT_RELOAD_INTERVAL_MS,
      }),
    },
    OfacScreeningService,
    OfacListMetrics,
  ],
  exports: [OfacScreeningService],
})
export class ScreeningModule {}
