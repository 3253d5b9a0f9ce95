import type { Readable } from 'node:stream';
import type { CallBudget } from './call-budget';

/** Where and as whom to talk to a document system: the credential's login. */
export interface DocumentSystemLogin {
  instanceUrl: string;
  username: string;
  password: string;
}

/**
 * Hands out the OAuth access token of a connection. `refreshed()` is called once when the document
 * system says the token is invalid, before the call is retried.
 */
export interface AccessTokenSource {
  current(): Promise<string>;
  refreshed(): Promise<string>;
}

export interface Workgroup {
  id: string;
  name: string;
  rootFolderId: string;
}

export interface FolderEntry {
  kind: 'folder';
  id: string;
  name: string;
  parentId: string;
}

export interface FileEntry {
  kind: 'file';
  id: string;
  name: string;
  parentId: string;
  size?: number;
  mimeType?: string;
  version?: string;
  modifiedAt?: string;
  sha256?: string;
}

export type ChildEntry = FolderEntry | FileEntry;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /** Items left out of `items` as unreadable (no id, a kind the contract does not name): any of them may be a known one. */
  unreadable?: number;
}

export interface FileContent {
  stream: Readable;
  contentType: string;
  contentLength: number | null;
}

/**
 * `fresh` signs in anew even when a session is kept for the login; `budget` bounds every call the session
 * makes, its sign-in included (the folder picker's bound).
 */
export interface OpenSessionOptions {
  fresh?: boolean;
  budget?: CallBudget;
}

/** A signed-in conversation with one document system, as one user. */
export interface DocumentSystemSession {
  listWorkgroups(cursor?: string): Promise<Page<Workgroup>>;
  listChildren(folderId: string, cursor?: string): Promise<Page<ChildEntry>>;
  /** The file's bytes; its download ends by a deadline set by `listedSize` (CONTRACT.md, fair share). */
  fileContent(fileId: string, listedSize?: number): Promise<FileContent>;
}

/**
 * The one seam between the connector and a document system. A second system is a new class that
 * extends this, nothing else.
 */
export abstract class DocumentSystemAdapter {
  /**
   * Opens (or reuses) a session; throws CREDENTIALS_INVALID or REAUTH_REQUIRED as DomainExceptions. `fresh`
   * signs in anew even when a session is kept for the login: a check of the credential as it stands now.
   * `tenantId` is the tenant the session works for: its calls are within that tenant's share, whatever the login.
   */
  abstract openSession(
    tenantId: string,
    login: DocumentSystemLogin,
    tokens: AccessTokenSource,
    options?: OpenSessionOptions,
  ): Promise<DocumentSystemSession>;
}
