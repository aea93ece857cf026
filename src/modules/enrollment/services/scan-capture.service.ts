import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import type { Principal } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import { AppConfig } from '../../../config/app-config';
import { BlindIndex, FieldCipher } from '../../../infrastructure/crypto/field-cipher';
import { ScanCapture } from '../entities/scan-capture.entity';
import type { ScanCaptureDto } from '../dtos/scan-capture.dto';
import { Clock } from '../../../infrastructure/time/clock';
import { isUuid } from '../../../common/validation/identifiers';

const ID_NUMBER_CONTEXT = 'scan_captures.id_number';
const VALIDITY_MS = 24 * 60 * 60 * 1000;

/** Scan capture of a Matricula Consular ID: yields the onboardingID a Matricula enrollment uses once, within 24 hours. */
@Injectable()
export class ScanCaptureService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly cipher: FieldCipher,
    private readonly blindIndex: BlindIndex,
    private readonly clock: Clock,
  ) {}

  async capture(principal: Principal, dto: ScanCaptureDto): Promise<{ onboardingID: string; status: string }> {
    if (!principal.partner.programs.includes(dto.programCode)) throw new DomainError('PROGRAM_NOT_ALLOWED');
    if (!this.config.service.programs.get(dto.programCode)?.matriculaEnabled) {
      throw new DomainError('INVALID_FIELD', { field: 'programCode', property: 'programCode (Matricula enrollment is not enabled)' });
    }
    const now = this.clock.now();
    const scan = this.dataSource.manager.create(ScanCapture, {
      id: randomUUID(),
      partnerId: principal.partner.partnerId,
      programCode: dto.programCode,
      idType: dto.idType,
      idNumberEnc: this.cipher.encrypt(dto.idNumber, ID_NUMBER_CONTEXT),
      idNumberBidx: this.blindIndex.of('matricula', dto.idNumber),
      issuingCountry: dto.issuingCountry,
      status: 'completed',
      createdAt: now,
      expiresAt: new Date(now.getTime() + VALIDITY_MS),
      usedAt: null,
      usedByAccountId: null,
    });
    await this.dataSource.manager.insert(ScanCapture, scan);
    return { onboardingID: scan.id, status: scan.status };
  }

  /**
   * The 24-hour window, judged once, at a first attempt and before any lock (CONTRACT section 6):
   * an identical retry days later still resumes. An unknown id fails here too; 400/660/0 either way.
   */
  async checkWindow(manager: EntityManager, onboardingID: string): Promise<void> {
    const scan = isUuid(onboardingID) ? await manager.findOne(ScanCapture, { where: { id: onboardingID }, select: { id: true, expiresAt: true } }) : null;
    if (!scan || scan.expiresAt.getTime() <= this.clock.now().getTime()) throw new DomainError('INVALID_ONBOARDING_ID', { field: 'onboardingID' });
  }

  /**
   * Inside the enrollment transaction: locks the capture and checks it is this partner's and
   * program's, completed and unused, and (when given) of the same number (its window was checked
   * before the locks). Returns the scanned number. Every failure is the same 400/660/0.
   */
  async claim(
    manager: EntityManager,
    partnerId: string,
    programCode: string,
    onboardingID: string,
    matriculaId?: string,
  ): Promise<{ scan: ScanCapture; idNumber: string }> {
    // Locked in plain SQL, then read (see AccountsService.lockForUpdate).
    if (isUuid(onboardingID)) await manager.query('select 1 from scan_captures where id = $1 for update', [onboardingID]);
    const scan = isUuid(onboardingID) ? await manager.findOne(ScanCapture, { where: { id: onboardingID } }) : null;
    const valid =
      scan !== null &&
      scan.partnerId === partnerId &&
      scan.programCode === programCode &&
      scan.status === 'completed' &&
      scan.usedAt === null &&
      (matriculaId === undefined || this.blindIndex.of('matricula', matriculaId) === scan.idNumberBidx);
    if (!valid || !scan) throw new DomainError('INVALID_ONBOARDING_ID', { field: 'onboardingID' });
    return { scan, idNumber: this.cipher.decrypt(scan.idNumberEnc, ID_NUMBER_CONTEXT) };
  }

  /** Marks the capture used by the new account, in the enrollment's batch. */
  stageUsed(batch: WriteBatch, scanId: string, accountId: string): void {
    batch.write(`update scan_captures set used_at = $1, used_by_account_id = $2 where id = $3`, [this.clock.now(), accountId, scanId]);
  }

  /** Deletes the captures that expired more than `retentionDays` ago; returns how many. */
  async purgeExpired(retentionDays: number): Promise<number> {
    const result = (await this.dataSource.query(`delete from scan_captures where expires_at < now() - make_interval(days => $1)`, [retentionDays])) as [
      unknown,
      number,
    ];
    return result[1] ?? 0;
  }
}
