import { ApiError } from './api-error';

export type TokenSource = () => string | null;

export interface HttpClient {
  get<T>(path: string, query?: Record<string, string | number | null | undefined>): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  put<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
  /** The raw bytes with the file name the service gave (Content-Disposition). */
  blob(path: string): Promise<{ blob: Blob; fileName: string | null }>;
  /** Reads a Server-Sent Events stream (with the bearer token, which EventSource cannot send) until it ends. */
  events(path: string, onEvent: (name: string, data: string) => void, signal: AbortSignal): Promise<void>;
}

/**
 * A small JSON client for one service: bearer token on every call, the contract's error body turned
 * into an ApiError, and `onUnauthenticated` told when the token is refused.
 */
export function createHttpClient(
  service: string,
  baseUrl: string,
  token: TokenSource,
  onUnauthenticated: () => void,
): HttpClient {
  async function send(
    method: string,
    path: string,
    body?: unknown,
    extra: { accept?: string; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { Accept: extra.accept ?? 'application/json' };
    const bearer = token();
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: extra.signal,
      });
    } catch (cause) {
      throw ApiError.unreachable(service, cause);
    }
    if (response.ok) return response;
    const error = await ApiError.from(response);
    if (error.status === 401 && bearer) onUnauthenticated();
    throw error;
  }

  const json = async <T>(response: Response): Promise<T> =>
    response.status === 204 ? (undefined as T) : ((await response.json()) as T);

  return {
    get: async (path, query) => json(await send('GET', path + queryString(query))),
    post: async (path, body) => json(await send('POST', path, body ?? {})),
    put: async (path, body) => json(await send('PUT', path, body)),
    patch: async (path, body) => json(await send('PATCH', path, body)),
    delete: async (path) => void (await send('DELETE', path)),
    blob: async (path) => {
      const response = await send('GET', path);
      return { blob: await response.blob(), fileName: fileNameOf(response.headers.get('Content-Disposition')) };
    },
    events: async (path, onEvent, signal) => {
      const response = await send('GET', path, undefined, { accept: 'text/event-stream', signal });
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = '';
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffered += read.value;
        const blocks = buffered.split('\n\n');
        buffered = blocks.pop() ?? '';
        for (const block of blocks) {
          const field = (name: string) =>
            block
              .split('\n')
              .filter((line) => line.startsWith(`${name}:`))
              .map((line) => line.slice(name.length + 1).trimStart())
              .join('\n');
          if (field('data')) onEvent(field('event') || 'message', field('data'));
        }
      }
    },
  };
}

/**
 * A value as one path segment. URLs resolve a "." or ".." segment away, %2E spellings too, so
 * DELETE …/members/.. would be DELETE of the data source: those two are refused, never sent.
 */
export function segment(value: string): string {
  if (value === '.' || value === '..')
    throw new ApiError(
      400,
      'UNADDRESSABLE_ID',
      `The id "${value}" cannot be put in a URL: a browser reads it as a relative path to another resource.`,
      [{ resolution: 'Use the API outside the browser for it (curl --path-as-is).' }],
    );
  return encodeURIComponent(value);
}

function queryString(query?: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {}))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** RFC 6266: prefers `filename*=UTF-8''…`, else `filename="…"`. */
export function fileNameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (extended) return decodeURIComponent(extended[1]);
  return /filename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
}
