import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An approval's outbox row keeps no payload: its event is built from the decided approval, so the decision
 * stays one statement and the event has one builder. A refused request (no approval) still stores its event.
 */
export class DecisionOutboxRowsWithoutPayload1795400014000 implements MigrationInterface {
  name = 'DecisionOutboxRowsWithoutPayload1795400014000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE approval.decision_outbox ALTER COLUMN payload DROP NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    // The code before this migration reads every row's payload. A migration imports no app code (it stays
    // as it was written), so the events are restored here in the shape that code stored.
    await q.query(`
      UPDATE approval.decision_outbox o SET payload = jsonb_build_object('approvalId', o."approvalId", 'tenantId', a."tenantId",
        'executionId', a."executionId", 'stepId', a."stepId", 'outcome', a.status, 'comment', a.comment, 'decidedBy', a."decidedBy",
        'decidedAt', to_char(a."decidedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      FROM approval.approvals a
      WHERE o.payload IS NULL AND a.id = CASE WHEN o.payload IS NULL THEN o."approvalId"::uuid END`);
    await q.query('ALTER TABLE approval.decision_outbox ALTER COLUMN payload SET NOT NULL');
  }
}
