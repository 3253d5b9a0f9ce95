import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { ApprovalCursor } from './approval-cursor';
import { ApprovalLogEntity } from '../approval-store/approval-log.entity';
import { ApprovalStatus } from '../approval-store/approval-state';
import { ApprovalEntity } from '../approval-store/approval.entity';

export interface ApprovalFilter {
  executionId?: string;
  status?: ApprovalStatus;
}

export interface ApprovalPage {
  approvals: ApprovalEntity[];
  /** Where the next page starts; null on the last page. */
  next: ApprovalCursor | null;
}

/** An approval's latest log entries, oldest first, and whether older ones were left out. */
export interface RecentLog {
  entries: ApprovalLogEntity[];
  truncated: boolean;
}

/** What the API reads: keyset pages newest first, each approval with a bounded tail of its log, and one approval's whole log. */
@Injectable()
export class ApprovalListRepository {
  constructor(
    @InjectRepository(ApprovalEntity) private readonly approvals: Repository<ApprovalEntity>,
    @InjectRepository(ApprovalLogEntity) private readonly log: Repository<ApprovalLogEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async page(
    tenantId: string,
    filter: ApprovalFilter,
    limit: number,
    after: ApprovalCursor | null,
  ): Promise<ApprovalPage> {
    const query = this.approvals
      .createQueryBuilder('a')
      .addSelect(`to_char(a."createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, 'cursor_at')
      .where('a."tenantId" = :tenantId', { tenantId })
      .orderBy('a."createdAt"', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .limit(limit + 1);
    if (filter.executionId) query.andWhere('a."executionId" = :executionId', { executionId: filter.executionId });
    if (filter.status) query.andWhere('a.status = :status', { status: filter.status });
    if (after) query.andWhere(`(a."createdAt", a.id) < (:at::timestamptz, :id::uuid)`, after);
    const { entities, raw } = await query.getRawAndEntities<{ cursor_at: string }>();
    const more = entities.length > limit;
    const last = more ? entities[limit - 1] : null;
    return { approvals: entities.slice(0, limit), next: last ? { at: raw[limit - 1].cursor_at, id: last.id } : null };
  }

  /** At most `max` latest entries per approval, in one query. */
  async recentLogs(approvalIds: string[], max: number): Promise<Map<string, RecentLog>> {
    const rows: ApprovalLogEntity[] = approvalIds.length
      ? await this.db.query(
          `SELECT id, "approvalId"::text AS "approvalId", at, type, attempt, "httpStatus", "durationMs", error, comment, "decidedBy", reminder FROM (
             SELECT l.*, row_number() OVER (PARTITION BY l."approvalId" ORDER BY l.at DESC, l.id DESC) AS n
             FROM approval.approval_log l WHERE l."approvalId" = ANY($1::uuid[])) latest
           WHERE n <= $2 ORDER BY at, id`,
          [approvalIds, max + 1],
        )
      : [];
    const logs = new Map(approvalIds.map((id) => [id, { entries: [] as ApprovalLogEntity[], truncated: false }]));
    for (const row of rows) logs.get(row.approvalId)?.entries.push(row);
    for (const log of logs.values()) {
      log.truncated = log.entries.length > max;
      if (log.truncated) log.entries.shift();
    }
    return logs;
  }

  /** Whether a request step has its approval (a stalled-out request job asks: StalledOutRequests). */
  hasStep(tenantId: string, executionId: string, stepId: string): Promise<boolean> {
    return this.approvals.existsBy({ tenantId, executionId, stepId });
  }

  entries(approvalId: string): Promise<ApprovalLogEntity[]> {
    return this.log.find({ where: { approvalId }, order: { at: 'ASC', id: 'ASC' } });
  }
}
