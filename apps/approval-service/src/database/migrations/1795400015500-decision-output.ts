import { MigrationInterface, QueryRunner } from 'typeorm';

/** The JSON object a decision hands back to the agent (the callback's `output`). */
export class DecisionOutput1795400015500 implements MigrationInterface {
  name = 'DecisionOutput1795400015500';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE approval.approvals ADD COLUMN output jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE approval.approvals DROP COLUMN output');
  }
}
