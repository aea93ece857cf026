import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import { BusinessProfileService } from '../../business-profile/services/business-profile.service';
import { replaceCard } from '../../lifecycle/account-lifecycle';
import { LifecycleWriter } from '../../lifecycle/lifecycle.writer';
import { UserRecordsService } from '../../user/services/user-records.service';
import type { CallConnection } from '../../../infrastructure/database/call-connection';
import { CareActionRunner, CareActor } from './care-action-runner';

/** A new card embossed with the holder's current names (and current business name); the old one becomes `replaced`. */
@Injectable()
export class CardReplacementService {
  constructor(
    private readonly runner: CareActionRunner,
    private readonly writer: LifecycleWriter,
    private readonly users: UserRecordsService,
    private readonly businessProfiles: BusinessProfileService,
  ) {}

  replace(call: CallConnection, who: CareActor, accountId: string, paymentIdentifier: string): Promise<void> {
    return this.runner.run(call, who, accountId, 'paymentInstrument.replace', async (manager, account, cards) => {
      const old = cards.find((card) => card.id === paymentIdentifier);
      if (!old) throw new DomainError('PAYMENT_INSTRUMENT_NOT_FOUND');
      const holder = (await this.users.findById(manager, account.id, old.userId)) ?? (await this.users.primaryOf(manager, account.id));
      if (!holder) throw new Error(`account ${account.id} has no card holder`);
      const businessName = account.accountType === 'business' ? await this.businessProfiles.businessNameOf(manager, account.id) : null;
      const newId = randomUUID();
      await this.writer.apply(manager, account, replaceCard(account, old, { userId: holder.id, ...this.users.namesOf(holder) }, businessName, newId));
      return { replacedPaymentIdentifier: old.id, newPaymentIdentifier: newId };
    });
  }
}
