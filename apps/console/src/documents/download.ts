import type { ConnectorApi } from '../api/connector-api';

/** The original file: fetched with the bearer header (a plain link cannot carry it), then saved. */
export async function downloadDocument(
  connector: ConnectorApi,
  documentId: string,
  fallbackName: string,
): Promise<void> {
  const { blob, fileName } = await connector.documents.content(documentId);
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName ?? fallbackName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
