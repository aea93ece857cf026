import { Injectable } from '@nestjs/common';
import type { PartnerConfig } from '../../../config/service-config';
import { PartnerViewService } from '../../../infrastructure/crypto/partner-view.service';
import type { User } from '../entities/user.entity';
import { ContactRows, UserDataPlain, UserRepository } from '../repositories/user.repository';
import type { UserKey } from '../user-columns';

/** The partner-facing user (PUT user, POST identity, GET users, and the user of an account view). */
export interface UserView {
  userIdentifier: string;
  isPrimaryAccountHolder: boolean;
  status: string;
  encryptedUserData?: string;
}

/** Renders a user for a partner: `encryptedUserData` sealed for encryption partners, omitted for anyone else. */
@Injectable()
export class UserViewService {
  constructor(
    private readonly users: UserRepository,
    private readonly partnerView: PartnerViewService,
  ) {}

  /**
   * The view from rows already in hand (a user update builds its answer from memory). `contact` is
   * needed only for encryption partners (null when `PartnerViewService.receivesEncryptedData` is false).
   */
  async viewOf(user: User, contact: ContactRows | null, partner: PartnerConfig): Promise<UserView> {
    const sealed = await this.partnerView.seal(partner, 'encryptedUserData', () => {
      if (!contact) throw new Error(`contact rows of user ${user.id} were not read`);
      return this.users.decryptWith(user, contact);
    });
    return this.render(user, sealed);
  }

  /** The view for a partner whose views seal nothing (`sealsFor` false): the user's key columns only. */
  unsealedViewOf(user: UserKey): UserView {
    return this.render(user, {});
  }

  /** The view of a user just built in memory (a new enrollment), from the plaintext in hand: nothing decrypted. */
  async viewOfNew(user: User, data: UserDataPlain, partner: PartnerConfig): Promise<UserView> {
    return this.render(user, await this.partnerView.seal(partner, 'encryptedUserData', () => data));
  }

  /** Whether this partner's views carry `encryptedUserData` (so a view needs the user's encrypted columns and contact rows). */
  sealsFor(partner: PartnerConfig): boolean {
    return this.partnerView.receivesEncryptedData(partner);
  }

  /** The decrypted names of a user (the account holder of `encryptedAccountData`). */
  namesOf(user: User): { firstName: string; middleName?: string; lastName: string } {
    return this.users.namesOf(user);
  }

  private render(user: UserKey, sealed: Record<string, string>): UserView {
    return { userIdentifier: user.id, isPrimaryAccountHolder: user.isPrimary, status: user.status, ...sealed };
  }
}
