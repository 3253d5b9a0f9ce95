import { segment, type HttpClient } from './http-client';
import type {
  AuthorizationStart,
  CredentialValidation,
  Connection,
  Credential,
  CredentialInput,
  DataSource,
  DataSourceDetail,
  DocumentText,
  Member,
  PassagePage,
  PickerPage,
  Provider,
  ProviderInput,
  SearchPage,
  Selection,
  SyncRun,
  SyncRunFilesPage,
  SyncStart,
  TreePage,
} from './types';

export interface NewDataSource {
  name: string;
  connectionId: string;
  credentialId?: string;
  credential?: CredentialInput;
}

export interface DataSourceChanges {
  name?: string;
  credentialId?: string;
  connectionId?: string;
}

/** The connector-service's public API, one function per endpoint the console uses. */
export function connectorApi(http: HttpClient) {
  return {
    providers: {
      list: () => http.get<Provider[]>('/v2/OAuth/providers'),
      create: (input: ProviderInput) => http.post<Provider>('/v2/OAuth/providers', input),
      update: (providerId: string, input: ProviderInput) =>
        http.put<Provider>(`/v2/OAuth/providers/${segment(providerId)}`, input),
      remove: (providerId: string) => http.delete(`/v2/OAuth/providers/${segment(providerId)}`),
    },
    connections: {
      authorize: (providerId: string) => http.post<AuthorizationStart>('/v2/OAuth/authorize', { providerId }),
      list: () => http.get<Connection[]>('/v2/OAuth/connections'),
    },
    credentials: {
      list: () => http.get<Credential[]>('/v1/credentials'),
      create: (input: CredentialInput) => http.post<Credential>('/v1/credentials', input),
      update: (credentialId: string, input: CredentialInput) =>
        http.put<Credential>(`/v1/credentials/${segment(credentialId)}`, input),
      remove: (credentialId: string) => http.delete(`/v1/credentials/${segment(credentialId)}`),
      validate: (credentialId: string, connectionId: string) =>
        http.post<CredentialValidation>(`/v1/credentials/${segment(credentialId)}/validate`, { connectionId }),
    },
    dataSources: {
      list: (projectId: string) => http.get<DataSource[]>(`/v1/projects/${segment(projectId)}/data-sources`),
      get: (dataSourceId: string) => http.get<DataSourceDetail>(`/v1/data-sources/${segment(dataSourceId)}`),
      create: (projectId: string, input: NewDataSource) =>
        http.post<DataSource>(`/v1/projects/${segment(projectId)}/data-sources`, input),
      update: (dataSourceId: string, changes: DataSourceChanges) =>
        http.patch<DataSource>(`/v1/data-sources/${segment(dataSourceId)}`, changes),
      remove: (dataSourceId: string) => http.delete(`/v1/data-sources/${segment(dataSourceId)}`),
      folders: (dataSourceId: string, parentId?: string, cursor?: string | null) =>
        http.get<PickerPage>(`/v1/data-sources/${segment(dataSourceId)}/folders`, { parentId, cursor }),
      select: (dataSourceId: string, selection: Selection) =>
        http.put<DataSource>(`/v1/data-sources/${segment(dataSourceId)}/selection`, selection),
      tree: (dataSourceId: string, folderId?: string) =>
        http.get<TreePage>(`/v1/data-sources/${segment(dataSourceId)}/tree`, { folderId }),
      members: (dataSourceId: string) => http.get<Member[]>(`/v1/data-sources/${segment(dataSourceId)}/members`),
      addMember: (dataSourceId: string, userId: string) =>
        http.post<Member>(`/v1/data-sources/${segment(dataSourceId)}/members`, { userId }),
      removeMember: (dataSourceId: string, userId: string) =>
        http.delete(`/v1/data-sources/${segment(dataSourceId)}/members/${segment(userId)}`),
    },
    sync: {
      start: (dataSourceId: string) => http.post<SyncStart>(`/v1/data-sources/${segment(dataSourceId)}/sync`),
      runs: (dataSourceId: string) => http.get<SyncRun[]>(`/v1/data-sources/${segment(dataSourceId)}/sync-runs`),
      run: (syncRunId: string) => http.get<SyncRun>(`/v1/sync-runs/${segment(syncRunId)}`),
      cancel: (syncRunId: string) => http.post<SyncRun>(`/v1/sync-runs/${segment(syncRunId)}/cancel`),
      events: (syncRunId: string, onEvent: (name: string, data: string) => void, signal: AbortSignal) =>
        http.events(`/v1/sync-runs/${segment(syncRunId)}/events`, onEvent, signal),
      confirmDeletions: (syncRunId: string) =>
        http.post<{ deleted: number }>(`/v1/sync-runs/${segment(syncRunId)}/confirm-deletions`),
      files: (syncRunId: string, query: { outcome?: string; cursor?: string | null; limit?: number }) =>
        http.get<SyncRunFilesPage>(`/v1/sync-runs/${segment(syncRunId)}/files`, query),
    },
    documents: {
      text: (documentId: string) => http.get<DocumentText>(`/v1/documents/${segment(documentId)}/text`),
      content: (documentId: string) => http.blob(`/v1/documents/${segment(documentId)}/content`),
    },
    search: (projectId: string, q: string, cursor?: string | null, dataSourceId?: string) =>
      http.get<SearchPage>(`/v1/projects/${segment(projectId)}/search`, { q, cursor, dataSourceId }),
    passages: (projectId: string, q: string, dataSourceId?: string) =>
      http.get<PassagePage>(`/v1/projects/${segment(projectId)}/passages`, { q, dataSourceId }),
  };
}

export type ConnectorApi = ReturnType<typeof connectorApi>;
