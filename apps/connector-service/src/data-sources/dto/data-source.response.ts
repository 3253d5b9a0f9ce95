import { DataSourceView, selectionOf } from '@app/contracts/views';
import type { DataSourceEntity } from '../data-source.entity';
import { shownIngestionStatus } from '../instance-origin';

/**
 * `selectionMarks` adds each mark's ancestors (outermost first), so a picker can tell which marks lie below a
 * folder, and the folder's name when it was selected, so a summary can name it without asking anyone.
 */
export function dataSourceResponse(entity: DataSourceEntity): DataSourceView {
  return {
    id: entity.id,
    projectId: entity.projectId,
    name: entity.name,
    credentialId: entity.credentialId,
    connectionId: entity.connectionId,
    selection: selectionOf(entity.selection),
    selectionMarks: entity.selection.map((m) => ({
      folderId: m.folderId,
      mode: m.mode,
      ancestorIds: m.ancestorIds,
      name: m.name ?? null,
    })),
    schedule: entity.scheduleIntervalMinutes ? { intervalMinutes: entity.scheduleIntervalMinutes } : null,
    ingestionStatus: shownIngestionStatus(entity),
    createdBy: entity.createdBy,
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}
