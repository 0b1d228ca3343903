import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { TenantRow } from '../db/queries/users';
import { actorIn, type Actor } from './context';

/**
 * A finished answer of a hot read: the route's own headers, as name/value pairs (lower-case names,
 * each once; a route keeps the list of each of its answers, so that nothing is built per request),
 * and the body.
 */
export interface HotAnswer {
  status: 200 | 304;
  headers: readonly string[];
  body?: Buffer;
}

/** A route's header pairs from a record: what a route builds once per answer it keeps. */
export function headerPairs(headers: Record<string, string>): readonly string[] {
  return Object.freeze(Object.entries(headers).flat());
}

export interface HotScope {
  actor: Actor;
  tenant: TenantRow;
  tenantId: string;
}

/**
 * A route's hot read: the answer it would give from what this process already holds, or undefined
 * when anything is missing, stale or refused (the request then takes the full route).
 */
export type HotHandler = (req: IncomingMessage, scope: HotScope, params: string[]) => HotAnswer | undefined;

/** The limiter's window of a caller: the headers to send, or undefined when the caller is over it. */
export type HotLimit = (key: string) => Record<string, string> | undefined;

/** The log levels at which the framework logs every request. */
const REQUEST_LOG_LEVELS = new Set(['trace', 'debug', 'info']);

interface HotRoute {
  pattern: RegExp;
  handler: HotHandler;
}

/**
 * Hot reads (docs/decisions/0104-hot-reads.md): the catalog's most frequent calls, a service's
 * /full and the list of services, answered from the HTTP server's request event, before the
 * framework's routing and hooks, when everything the answer depends on is already in this
 * process's caches and still fresh: the verified token, the session, the tenant, the caller's
 * access to the service and the encoded body. The decisions are the same functions the full
 * routes use (policies included); only the reads are skipped, and the caches they come from are
 * invalidated by every write (server/db/writeStamps.ts). Anything else, a miss, a refusal or an
 * error, leaves the request untouched for the full route, which answers it as always.
 */
export class HotReads {
  /** Requests answered here: tests use it to check that the hot read ran. */
  answered = 0;
  private readonly routes: HotRoute[] = [];
  /** The caller of a bearer token, from the session plugin's caches. */
  actorOf: (token: string) => Actor | undefined = () => undefined;
  /** The tenant a request works in, with the same checks as the tenant plugin. */
  tenantOf: (req: IncomingMessage, actor: Actor) => TenantRow | undefined = () => undefined;
  /** Each route answer's header list with the headers every response carries, built once per list. */
  private merged = new WeakMap<readonly string[], string[]>();
  private common: Record<string, string> = {};
  /** The rate limiter shared with the full routes; unset when rate limiting is off. */
  limit: HotLimit | undefined;
  requestId: (req: IncomingMessage) => string = () => '';

  constructor(private readonly log: () => FastifyBaseLogger) {}

  /** Sets the headers every response carries (the security plugin's); the merged lists are built again. */
  setCommonHeaders(headers: Record<string, string>): void {
    this.common = { ...headers };
    this.merged = new WeakMap();
  }

  /** The headers every response carries, then the route's own (the route's value wins a shared name). */
  private withCommon(own: readonly string[]): string[] {
    let list = this.merged.get(own);
    if (!list) {
      const names = new Set(own.filter((_, i) => i % 2 === 0));
      list = [
        ...Object.entries(this.common)
          .filter(([name]) => !names.has(name))
          .flat(),
        ...own,
      ];
      this.merged.set(own, list);
    }
    return list;
  }

  /** Adds a route: `pattern` is matched against the whole path of GET /api requests without a query. */
  route(pattern: RegExp, handler: HotHandler): void {
    this.routes.push({ pattern, handler });
  }

  /** Answers the request when it can, and says so; otherwise leaves it for the full route. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url;
    if (req.method !== 'GET' || !url || !url.startsWith('/api/') || url.includes('?') || this.routes.length === 0) return false;
    try {
      return this.tryAnswer(req, res, url);
    } catch {
      // Whatever went wrong, the full route decides; nothing has been written yet.
      return false;
    }
  }

  private tryAnswer(req: IncomingMessage, res: ServerResponse, url: string): boolean {
    const started = performance.now();
    let match: RegExpExecArray | null = null;
    let handler: HotHandler | undefined;
    for (const route of this.routes) {
      match = route.pattern.exec(url);
      if (match) {
        handler = route.handler;
        break;
      }
    }
    if (!match || !handler) return false;
    const token = bearerToken(req.headers.authorization);
    if (!token) return false;
    const signedIn = this.actorOf(token);
    if (!signedIn) return false;
    const tenant = this.tenantOf(req, signedIn);
    if (!tenant) return false;
    const actor = actorIn(signedIn, tenant.id);
    const answer = handler(req, { actor, tenant, tenantId: tenant.id }, match.slice(1));
    if (!answer) return false;
    const limited = this.limit ? this.limit(`u:${actor.user.id}`) : {};
    if (!limited) return false;

    const id = this.requestId(req);
    const log = this.log();
    const logging = REQUEST_LOG_LEVELS.has(log.level);
    const child = logging ? log.child({ reqId: id }) : undefined;
    // The same two lines as the framework's request logging, with the same request serializer.
    child?.info({ req: { method: req.method, url, ip: req.socket.remoteAddress } }, 'incoming request');
    // As name/value pairs: Node writes them as they come, with no object to build per request.
    const headers: (string | number)[] = this.withCommon(answer.headers).slice();
    for (const name in limited) headers.push(name, limited[name]!);
    headers.push('x-request-id', id, 'server-timing', serverTiming(performance.now() - started));
    if (answer.body) headers.push('content-length', answer.body.length);
    res.writeHead(answer.status, headers as string[]);
    res.end(answer.body);
    this.answered++;
    child?.info({ res: { statusCode: answer.status }, responseTime: performance.now() - started }, 'request completed');
    return true;
  }
}

/** The Server-Timing header of an API answer: the server's milliseconds on it. */
export function serverTiming(ms: number): string {
  return `app;dur=${ms.toFixed(2)}`;
}

/** The token of an `Authorization: Bearer` header; null when there is none or it is malformed. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(header);
  return m ? m[1]! : null;
}
