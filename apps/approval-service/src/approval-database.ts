import { ServiceDatabaseOptions } from '@app/database';
import { ApprovalLogEntity } from './approval-store/approval-log.entity';
import { ApprovalEntity } from './approval-store/approval.entity';
import { DecisionOutboxEntity } from './outbox/decision-outbox.entity';
import { Approvals1795400000000 } from './database/migrations/1795400000000-approvals';
import { RequestFingerprint1795400011000 } from './database/migrations/1795400011000-request-fingerprint';
import { ApprovalLimits1795400012000 } from './database/migrations/1795400012000-approval-limits';
import { ApprovalExtras1795400013000 } from './database/migrations/1795400013000-approval-extras';
import { DecisionOutboxRowsWithoutPayload1795400014000 } from './database/migrations/1795400014000-decision-outbox-rows-without-payload';
import { DecisionOutput1795400015500 } from './database/migrations/1795400015500-decision-output';
import { Reminders1795400015600 } from './database/migrations/1795400015600-reminders';
import { PendingApprovals1795400016000 } from './database/migrations/1795400016000-pending-approvals';
import { FreeFormFieldsAsSent1795400017000 } from './database/migrations/1795400017000-free-form-fields-as-sent';
import { RemindersStopped1795400018000 } from './database/migrations/1795400018000-reminders-stopped';
import { ReminderNextRound1795400019000 } from './database/migrations/1795400019000-reminder-next-round';

/** The approval-service owns the `approval` schema. Features add their entities and migrations here. */
export const APPROVAL_SCHEMA = 'approval';

export const approvalDatabase: ServiceDatabaseOptions = {
  schema: APPROVAL_SCHEMA,
  entities: [ApprovalEntity, ApprovalLogEntity, DecisionOutboxEntity],
  migrations: [
    Approvals1795400000000,
    RequestFingerprint1795400011000,
    ApprovalLimits1795400012000,
    ApprovalExtras1795400013000,
    DecisionOutboxRowsWithoutPayload1795400014000,
    DecisionOutput1795400015500,
    Reminders1795400015600,
    PendingApprovals1795400016000,
    FreeFormFieldsAsSent1795400017000,
    RemindersStopped1795400018000,
    ReminderNextRound1795400019000,
  ],
};
