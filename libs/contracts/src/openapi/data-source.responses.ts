import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  DataSourceDetailView,
  DataSourceView,
  ExtractionProgressView,
  INGESTION_STATUSES,
  IngestionStatus,
  MemberView,
  PickerFolderView,
  PickerPageView,
  SelectionMarkView,
} from '../views/data-source.view';
import { FolderSelectionState, MarkMode, Selection } from '../views/selection-rules';

export class SelectionResponse implements Selection {
  @ApiProperty({ type: [String], description: 'Folders taken with their whole subtree' })
  include: string[];

  @ApiProperty({ type: [String], description: 'Folders left out of an included one' })
  exclude: string[];
}

export class SelectionMarkResponse implements SelectionMarkView {
  @ApiProperty()
  folderId: string;

  @ApiProperty({ enum: ['include', 'exclude'] })
  mode: MarkMode;

  @ApiProperty({ type: [String], description: "The folder's ancestors, outermost first" })
  ancestorIds: string[];

  @ApiProperty({ type: String, nullable: true, description: "The folder's name when it was selected" })
  name: string | null;
}

export class ScheduleResponse {
  @ApiProperty()
  intervalMinutes: number;
}

export class DataSourceResponse implements DataSourceView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  projectId: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ format: 'uuid' })
  credentialId: string;

  @ApiProperty({ format: 'uuid' })
  connectionId: string;

  @ApiProperty({ type: () => SelectionResponse })
  selection: SelectionResponse;

  @ApiProperty({ type: () => [SelectionMarkResponse] })
  selectionMarks: SelectionMarkResponse[];

  @ApiProperty({ type: () => ScheduleResponse, nullable: true })
  schedule: ScheduleResponse | null;

  @ApiProperty({ enum: INGESTION_STATUSES })
  ingestionStatus: IngestionStatus;

  @ApiProperty()
  createdBy: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class ExtractionProgressResponse implements ExtractionProgressView {
  @ApiProperty({ description: 'Extraction ended without failure (text, unsupported, too large, not stored)' })
  done: number;

  @ApiProperty()
  pending: number;

  @ApiProperty()
  failed: number;
}

export class DataSourceDetailResponse extends DataSourceResponse implements DataSourceDetailView {
  @ApiProperty({ description: 'Documents whose text is still being extracted' })
  pendingExtractions: number;

  @ApiProperty({ type: () => ExtractionProgressResponse })
  extraction: ExtractionProgressResponse;
}

export class MemberResponse implements MemberView {
  @ApiProperty()
  userId: string;

  @ApiProperty()
  addedBy: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class PickerFolderResponse implements PickerFolderView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  path: string;

  @ApiProperty()
  hasChildren: boolean;

  @ApiProperty({ enum: ['Selected', 'Partial', 'None'] })
  selection: FolderSelectionState;
}

export class PickerPageResponse implements PickerPageView {
  @ApiProperty({ type: () => [PickerFolderResponse] })
  items: PickerFolderResponse[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor: string | null;

  @ApiPropertyOptional({
    description: 'Why the page is empty, when the account sees no workgroups; or why it is partial',
  })
  notice?: string;

  @ApiPropertyOptional({
    description:
      'True when the request reached its bound (50 document-system calls, 10 s) before looking into every ' +
      'folder: those show hasChildren true. Absent otherwise.',
  })
  partial?: boolean;
}
