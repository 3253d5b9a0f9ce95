import { MigrationInterface, QueryRunner } from 'typeorm';

export class Approvals1795400000000 implements MigrationInterface {
  name = 'Approvals1795400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE approval.approvals (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "tenantId" text NOT NULL,
        "executionId" text NOT NULL,
        "stepId" text NOT NULL,
        "agentName" text NOT NULL,
        message text NOT NULL DEFAULT '',
        "stepInput" jsonb,
        "previousResults" jsonb,
        "webhookUrl" text NOT NULL,
        "authType" text NOT NULL,
        "authEncrypted" text,
        "timeoutSeconds" int NOT NULL,
        "maxRetryAttempts" int NOT NULL,
        "callbackId" uuid NOT NULL UNIQUE,
        "callbackTokenHash" text NOT NULL,
        "callbackTokenSealed" text,
        status text NOT NULL,
        comment text,
        "decidedAt" timestamptz,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        "updatedAt" timestamptz NOT NULL DEFAULT now(),
        UNIQUE ("tenantId", "executionId", "stepId")
      )`);
    await q.query(`CREATE INDEX approvals_tenant_status ON approval.approvals ("tenantId", status, "createdAt" DESC)`);
    await q.query(`
      CREATE TABLE approval.approval_log (
        id bigserial PRIMARY KEY,
        "approvalId" uuid NOT NULL REFERENCES approval.approvals(id) ON DELETE CASCADE,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        type text NOT NULL,
        attempt int,
        "httpStatus" int,
        "durationMs" int,
        error text,
        comment text
      )`);
    await q.query(`CREATE INDEX approval_log_approval ON approval.approval_log ("approvalId", id)`);
    await q.query(
      `CREATE UNIQUE INDEX approval_log_one_attempt ON approval.approval_log ("approvalId", attempt) WHERE type = 'DeliveryAttempt'`,
    );
    await q.query(`
      CREATE TABLE approval.decision_outbox (
        "approvalId" text PRIMARY KEY,
        payload jsonb NOT NULL,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        "publishedAt" timestamptz
      )`);
    await q.query(
      `CREATE INDEX decision_outbox_unpublished ON approval.decision_outbox ("createdAt") WHERE "publishedAt" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE approval.decision_outbox');
    await q.query('DROP TABLE approval.approval_log');
    await q.query('DROP TABLE approval.approvals');
  }
}
