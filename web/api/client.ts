import { M } from '../../common/messages';
import { storage } from './storage';

/** An answer with an error status; message is what the person sees. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** Shown when the answer carries no error or message field (spec section 8). */
  fallback?: string;
  signal?: AbortSignal;
  /** Answer the raw Response (downloads). */
  raw?: boolean;
  headers?: Record<string, string>;
}

/** Sends the bearer token and the tenant header of the stored session (spec section 7). */
export function authHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const token = storage.getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const tenant = storage.getActiveTenant() ?? storage.getUser()?.tenant ?? null;
  if (tenant?.slug) headers['X-Tenant-Slug'] = tenant.slug;
  return headers;
}

/** Any 401 clears the stored token and user and goes to /login. */
function onUnauthorized() {
  storage.clearSession();
  if (window.location.pathname !== '/login') window.location.assign('/login');
}

/** Error text: the answer's error or message field, else the caller's fallback, else 'Request failed'. */
export function errorText(body: unknown, fallback?: string): string {
  if (body && typeof body === 'object') {
    const b = body as { error?: unknown; message?: unknown };
    if (typeof b.error === 'string' && b.error) return b.error;
    if (typeof b.message === 'string' && b.message) return b.message;
  }
  return fallback ?? M.requestFailed;
}

export async function request<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...authHeaders(), ...(options.headers ?? {}) };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(`/api${path}`, { method: options.method ?? 'GET', headers, body, signal: options.signal });
  } catch (err) {
    // A request cancelled by its caller stays what it is; one that got no answer says so in words.
    if (options.signal?.aborted) throw err;
    throw new Error(M.serverUnreachable, { cause: err });
  }
  if (res.status === 401) onUnauthorized();
  if (!res.ok) {
    const data = await res.json().catch(() => null);
    throw new ApiError(res.status, errorText(data, options.fallback), data);
  }
  if (options.raw) return res as unknown as T;
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  return (type.includes('application/json') ? await res.json() : await res.text()) as T;
}

/** The message to show for any thrown value. */
export function messageOf(err: unknown, fallback?: string): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error && err.message) return err.message;
  return fallback ?? M.requestFailed;
}
