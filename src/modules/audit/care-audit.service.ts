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

/** The person behind a care console action (the identity provider's subject and email); API calls and jobs have none. */
export interface StaffIdentity {
  subject: string;
  email: string | null;
}

export interface AuditEntry {
  accountId: string;
  actor: string;
  action: string;
  before: AccountSnapshot;
  after: AccountSnapshot;
  detail?: Record<string, unknown>;
  staff?: StaffIdentity;
  /** The reason a staff member gave in the console. */
  reason?: string;
}

/** `staff` and `reason` appear only on console entries, so API answers stay as they were. */
export interface AuditView {
  action: string;
  actor: string;
  at: string;
  before: AccountSnapshot;
  after: AccountSnapshot;
  detail: Record<string, unknown>;
  staff?: StaffIdentity;
  reason?: string;
}

interface AuditRow {
  action: string;
  actor: string;
  at: Date;
  before: AccountSnapshot;
  after: AccountSnapshot;
  detail: Record<string, unknown>;
  staff_subject: string | null;
  staff_email: string | null;
  reason: string | null;
}

const COLUMNS = 'action, actor, at, before, after, detail, staff_subject, staff_email, reason';

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
      `insert into care_audit (account_id, actor, action, before, after, detail, staff_subject, staff_email, reason) values ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7, $8, $9)`,
      [
        entry.accountId,
        entry.actor,
        entry.action,
        JSON.stringify(entry.before),
        JSON.stringify(entry.after),
        JSON.stringify(entry.detail ?? {}),
        entry.staff?.subject ?? null,
        entry.staff?.email ?? null,
        entry.reason ?? null,
      ],
    );
  }

  async list(accountId: string): Promise<AuditView[]> {
    const rows = (await this.dataSource.query(`select ${COLUMNS} from care_audit where account_id = $1 order by at, id`, [accountId])) as AuditRow[];
    return rows.map(view);
  }
}

function view(row: AuditRow): AuditView {
  return {
    action: row.action,
    actor: row.actor,
    at: new Date(row.at).toISOString(),
    before: row.before,
    after: row.after,
    detail: row.detail,
    ...(row.staff_subject !== null ? { staff: { subject: row.staff_subject, email: row.staff_email } } : {}),
    ...(row.reason !== null ? { reason: row.reason } : {}),
  };
}
