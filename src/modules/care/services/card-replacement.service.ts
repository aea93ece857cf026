import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import { embossName } from '../../../common/validation/characters';
import { PaymentInstrumentStatus } from '../../accounts/entities/payment-instrument.entity';
import { PaymentInstrumentService } from '../../accounts/services/payment-instrument.service';
import { BusinessProfileService } from '../../business-profile/services/business-profile.service';
import { UserRecordsService } from '../../user/services/user-records.service';
import { CareActionRunner, CareActor } from './care-action-runner';
import { CARE_REASON } from './care-operations.service';
import { CareStateWriter } from './care-state-writer';

const REPLACEABLE: PaymentInstrumentStatus[] = ['active', 'inactive', 'blocked'];

/** A new card embossed with the holder's current names (and current business name); the old one becomes `replaced`. */
@Injectable()
export class CardReplacementService {
  constructor(
    private readonly runner: CareActionRunner,
    private readonly writer: CareStateWriter,
    private readonly instruments: PaymentInstrumentService,
    private readonly users: UserRecordsService,
    private readonly businessProfiles: BusinessProfileService,
  ) {}

  replace(who: CareActor, accountId: string, paymentIdentifier: string): Promise<void> {
    return this.runner.run(who, accountId, 'paymentInstrument.replace', async (manager, account) => {
      const old = (await this.writer.cards(manager, account.id)).find((card) => card.id === paymentIdentifier);
      if (!old) throw new DomainError('PAYMENT_INSTRUMENT_NOT_FOUND');
      if (account.status === 'closed' || !REPLACEABLE.includes(old.status)) throw new DomainError('CARE_NOT_APPLICABLE');
      const holder = (await this.users.findById(manager, account.id, old.userId)) ?? (await this.users.primaryOf(manager, account.id));
      if (!holder) throw new Error(`account ${account.id} has no card holder`);
      const names = this.users.namesOf(holder);
      const businessName = account.accountType === 'business' ? await this.businessProfiles.businessNameOf(manager, account.id) : null;
      // The new card is as usable as the account allows: blocked under a fraud block, inactive under a KYC gate.
      const status: PaymentInstrumentStatus =
        account.statusReason === CARE_REASON.fraudBlock ? 'blocked' : account.kycPendingGate === 'manual' || old.status === 'inactive' ? 'inactive' : 'active';
      const card = await this.instruments.issue(manager, {
        accountId: account.id,
        userId: holder.id,
        status,
        embossedName: embossName(`${names.firstName} ${names.lastName}`),
        embossedBusinessName: businessName ? embossName(businessName) : null,
      });
      await this.writer.setCardStatus(manager, account, old, 'replaced', 'care.replace', card.id);
      await this.writer.cardUpdated(manager, account, { paymentIdentifier: card.id, status: card.status, previousStatus: null, reason: 'care.replace', replaces: old.id });
      return { replacedPaymentIdentifier: old.id, newPaymentIdentifier: card.id };
    });
  }
}
