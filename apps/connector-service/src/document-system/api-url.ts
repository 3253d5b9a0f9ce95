import { DocumentSystemException } from './document-system.exception';

/**
 * The address of one API call: the instance URL gives the origin and a base path only, so a query or
 * fragment in it (an instance URL ending in `?`) can never choose the path or query of a call.
 */
export function apiUrl(instanceUrl: string, path: string, params: Record<string, string | undefined> = {}): URL {
  let url: URL;
  try {
    url = new URL(instanceUrl);
  } catch {
    throw DocumentSystemException.credentialsInvalid();
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = '';
  url.hash = '';
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
}

/** One path segment. The URL parser resolves `.` and `..` away however they are encoded, so no id may be one. */
export function pathSegment(id: string, notFound: () => Error): string {
  if (id === '.' || id === '..') throw notFound();
  return encodeURIComponent(id);
}
