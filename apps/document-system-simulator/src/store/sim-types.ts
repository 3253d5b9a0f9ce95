export interface SimUser {
  username: string;
  password: string;
  /** Workgroups this user sees. */
  workgroupIds: string[];
}

export interface Workgroup {
  id: string;
  name: string;
  rootFolderId: string;
}

export interface FolderNode {
  kind: 'folder';
  id: string;
  name: string;
  parentId: string | null;
  workgroupId: string;
}

/** File bytes held in memory, or generated on the fly from a seed (large and bulk files). */
export type FileBody =
  { type: 'bytes'; data: Buffer } | { type: 'generated'; format: 'text' | 'pdf'; size: number; seed: number };

export interface FileNode {
  kind: 'file';
  id: string;
  name: string;
  parentId: string;
  workgroupId: string;
  mimeType: string;
  version: number;
  modifiedAt: string;
  body: FileBody;
  size: number;
  sha256?: string;
}

export type SimNode = FolderNode | FileNode;

export interface Faults {
  /** Share of API calls answered 429 with Retry-After. */
  rate429: number;
  /** Share of API calls answered 503. */
  rate5xx: number;
  /** Share of API calls whose connection is dropped without an answer. */
  dropRate: number;
  /** Added to every API call. */
  latencyMs: number;
  /** Retry-After seconds sent with 429. */
  retryAfterSeconds: number;
  /** File content is sent at most this fast (bytes per second); 0: as fast as it goes. */
  contentBytesPerSecond: number;
  /** Files still listed whose content answers 404, as if deleted between listing and download. */
  missingContent: string[];
}

export const NO_FAULTS: Faults = {
  rate429: 0,
  rate5xx: 0,
  dropRate: 0,
  latencyMs: 0,
  retryAfterSeconds: 1,
  contentBytesPerSecond: 0,
  missingContent: [],
};
