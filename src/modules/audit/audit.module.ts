import { Module } from '@nestjs/common';
import { CareAuditService } from './care-audit.service';

/**
 * The care audit trail (`care_audit`): written by care operations and jobs, and by an enrollment
 * that the OFAC screening holds (the SDN entry it matched), read by care. Its own module so the
 * enrollment can record without depending on care (care depends on the enrollment).
 */
@Module({
  providers: [CareAuditService],
  exports: [CareAuditService],
})
export class AuditModule {}
