import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { WriteBatch } from '../../infrastructure/database/write-batch';

/** The state an audit entry records before and after an action (no encrypted data). */
export interface AccountSnapshot {
  status: string;
  statusReason: string | null;
  kycPendingGate: string;
  accountCycleDay: number | null;
  paymentInstruments: Array<{ paymentIdentifier: string; status: string }>;
}

export interface AuditEntry {
  accountId: string;
  actor: string;
  action: string;
  before: AccountSnapshot;
  after: AccountSnapshot;
  detail?: Record<string, unknown>;
}

export interface AuditView {
  action: string;
  actor: string;
  at: string;
  before: AccountSnapshot;
  after: AccountSnapshot;
  detail: Record<string, unknown>;
}

interface AuditRow {
  action: string;
  actor: string;
  at: Date;
  before: AccountSnapshot;
  after: AccountSnapshot;
  detail: Record<string, unknown>;
}

/** `care_audit`: who did what to which account, when, with the state before and after. */
@Injectable()
export class CareAuditService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async record(manager: EntityManager, entry: AuditEntry): Promise<void> {
    const batch = new WriteBatch();
    this.stage(batch, entry);
    await batch.execute(manager);
  }

  /** The entry, as a part of the caller's batch. */
  stage(batch: WriteBatch, entry: AuditEntry): void {
    batch.write(
      `insert into care_audit (account_id, actor, action, before, after, detail) values ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb)`,
      [entry.accountId, entry.actor, entry.action, JSON.stringify(entry.before), JSON.stringify(entry.after), JSON.stringify(entry.detail ?? {})],
    );
  }

  async list(accountId: string): Promise<AuditView[]> {
    const rows = (await this.dataSource.query(
      `select action, actor, at, before, after, detail from care_audit where account_id = $1 order by at, id`,
      [accountId],
    )) as AuditRow[];
    return rows.map(view);
  }
}

function view(row: AuditRow): AuditView {
  return { action: row.action, actor: row.actor, at: new Date(row.at).toISOString(), before: row.before, after: row.after, detail: row.detail };
}
