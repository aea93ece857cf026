import { Injectable } from '@nestjs/common';
import type { Principal } from '../../common/context/request-context';
import { CallRunner } from '../locking/call-runner';
import { LockNames } from '../../infrastructure/database/lock.service';
import { ResetCounts, SandboxResetRepository } from './sandbox-reset.repository';

/**
 * `DELETE /v1/sandbox/programs/{programCode}/data` (CONTRACT section 11): everything the calling
 * partner created in the program, in one transaction, and nothing of anyone else's. It takes the
 * partner's data lock exclusive, so it waits for the partner's enrollments in flight (they hold it
 * shared, phased ones across their commits) and none starts until it commits.
 */
@Injectable()
export class SandboxResetService {
  constructor(
    private readonly calls: CallRunner,
    private readonly repository: SandboxResetRepository,
  ) {}

  reset(principal: Principal, programCode: string): Promise<ResetCounts> {
    const partnerId = principal.partner.partnerId;
    return this.calls.locked([LockNames.partnerData(partnerId, programCode)], (call) =>
      this.repository.removePartnerData(call.manager, partnerId, programCode),
    );
  }
}
