import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import { Principal } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import { AccountsService, isAccountId } from '../../accounts/services/accounts.service';
import { BusinessDataDto } from '../dtos/business-data.dto';
import { BusinessDataUpdateDto } from '../dtos/business-data-update.dto';
import { BusinessProfileEntity } from '../entities/business-profile.entity';
import { BusinessDataView, BusinessProfileCodec } from './business-profile.codec';
import { prepared } from '../../../infrastructure/database/prepared-statements';
import type { CallConnection } from '../../../infrastructure/database/call-connection';
import { LockNames } from '../../../infrastructure/database/lock.service';
import { CallRunner } from '../../locking/call-runner';

/** The business data of a business account: written at enrollment, read and updated by partners. */
@Injectable()
export class BusinessProfileService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly codec: BusinessProfileCodec,
    private readonly accounts: AccountsService,
    private readonly calls: CallRunner,
  ) {}

  /** The profile of a new business account, added to the enrollment's batch. */
  stageForEnrollment(batch: WriteBatch, accountId: string, businessData: BusinessDataDto): void {
    const p = Object.assign(new BusinessProfileEntity(), { accountId });
    this.codec.write(p, businessData);
    batch.insert(
      'business_profiles',
      ['account_id', 'business_name', 'business_type', 'data', 'business_tax_id_enc', 'business_tax_id_last4'],
      [[p.accountId, p.businessName, p.businessType, JSON.stringify(p.data), p.businessTaxIdEnc ?? null, p.businessTaxIdLast4 ?? null]],
    );
  }

  /** The current business name, printed on the next card issued (replacement included); null without a profile. */
  async businessNameOf(manager: EntityManager, accountId: string): Promise<string | null> {
    const profile = await manager.findOne(BusinessProfileEntity, { where: { accountId }, select: { accountId: true, businessName: true } });
    return profile?.businessName ?? null;
  }

  /** The profile's view for enrollment and account responses; null without a profile. */
  async viewOf(manager: EntityManager, accountId: string): Promise<BusinessDataView | null> {
    const profile = await manager.findOne(BusinessProfileEntity, { where: { accountId } });
    return profile ? this.codec.view(profile) : null;
  }

  async get(principal: Principal, programCode: string, accountId: string): Promise<BusinessDataView> {
    const manager = this.dataSource.manager;
    await this.requireAccount(manager, principal, programCode, accountId);
    const profile = await manager.findOne(BusinessProfileEntity, { where: { accountId } });
    if (!profile) throw new DomainError('BUSINESS_PROFILE_NOT_FOUND');
    return this.codec.view(profile);
  }

  /**
   * Replaces the fields given; a profile must already exist (PUT updates, it does not create). A
   * locked call on the account (CallRunner.locked: the partner's in-flight cap, the account's lock
   * waiting at most LOCK_WAIT_MS): its BEGIN and lock with one `SELECT … FOR UPDATE` of the account
   * (tenancy included) and its profile, then the UPDATE with the COMMIT; the answer is built from
   * memory.
   */
  update(principal: Principal, programCode: string, accountId: string, patch: BusinessDataUpdateDto): Promise<BusinessDataView> {
    return this.calls.locked([LockNames.account(accountId)], async (call) => {
      const profile = await this.lockProfile(call, principal, programCode, accountId);
      const given = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
      if (Object.keys(given).length === 0) return this.codec.view(profile);
      this.codec.write(profile, { ...this.codec.read(profile), ...given });
      call.batch.write(
        `update business_profiles
            set business_name = $2, business_type = $3, data = $4::jsonb, business_tax_id_enc = $5, business_tax_id_last4 = $6, updated_at = now()
          where account_id = $1`,
        [
          profile.accountId,
          profile.businessName,
          profile.businessType,
          JSON.stringify(profile.data),
          profile.businessTaxIdEnc ?? null,
          profile.businessTaxIdLast4 ?? null,
        ],
      );
      return this.codec.view(profile);
    });
  }

  /**
   * The partner's account locked with its profile. The account row is locked too (a profile is the
   * nullable side of the join, which FOR UPDATE cannot lock), as the user update and the ITIN do.
   */
  private async lockProfile(call: CallConnection, principal: Principal, programCode: string, accountId: string): Promise<BusinessProfileEntity> {
    const rows = isAccountId(accountId)
      ? await call.rows<BusinessProfileEntity & { foundId: string }>(
          prepared(`select a.id as "foundId", bp.account_id as "accountId", bp.business_name as "businessName", bp.business_type as "businessType",
                  bp.data, bp.business_tax_id_enc as "businessTaxIdEnc", bp.business_tax_id_last4 as "businessTaxIdLast4",
                  bp.created_at as "createdAt", bp.updated_at as "updatedAt"
             from accounts a left join business_profiles bp on bp.account_id = a.id
            where a.id = $1 and a.partner_id = $2 and a.program_code = $3
              for update of a`),
          [accountId, principal.partner.partnerId, programCode],
        )
      : [];
    const row = rows[0];
    // SERVICE.md's PUT has one 404, "Invalid account information": an account without a business
    // profile (a consumer account) is such an account for an update (GET names the profile instead).
    if (!row || row.accountId === null) throw new DomainError('ACCOUNT_NOT_FOUND');
    const { foundId: _found, ...columns } = row;
    return Object.assign(new BusinessProfileEntity(), columns);
  }

  /** Another partner's or program's account is indistinguishable from a missing one. */
  private async requireAccount(manager: EntityManager, principal: Principal, programCode: string, accountId: string): Promise<void> {
    await this.accounts.requireForPartner(manager, principal.partner.partnerId, programCode, accountId);
  }
}
