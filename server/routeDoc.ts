import type { z } from 'zod';
import { PERMISSIONS, type Capability } from './policies/permissions';

/**
 * How a route documents itself next to its code, with `config: { doc: {...} }`: the OpenAPI
 * document (server/openapi.ts) is built from it, and the handler reads its body and query with the
 * schemas documented here (`bodyOf`, `queryOf` in server/validation.ts), so that the schema that
 * documents a route is the one that validates it (docs/decisions/0186-the-contract-stated-once.md).
 */
export interface RouteDoc {
  summary: string;
  /**
   * Who may call it: a capability of server/policies/permissions.ts, or 'public' / 'member'. A
   * note may follow the capability ('service.admin (a person, never an API token)'); the leading
   * capability is the one the handler's access layer checks, which the API tests verify.
   */
  capability: string;
  tags?: string[];
  body?: z.ZodType;
  /** The body's media type when it is not JSON: `multipart/form-data` for an upload. */
  bodyType?: string;
  query?: z.ZodType;
  /** Answers by status code: a JSON body's schema, null for no body (204), or an answer of other media types. */
  responses: Record<number, RouteAnswer>;
  /**
   * The errors this route answers besides those every route may answer, by status: what they
   * mean, with the body's schema where it carries more than `{error, code, field}`.
   */
  errors?: Record<number, string | { description: string; schema: z.ZodType }>;
  description?: string;
}

/** A documented answer: the schema of its JSON body, null for none, or an answer that is not (only) JSON. */
export type RouteAnswer = z.ZodType | null | OtherAnswer;

/** A file, a stream or a redirect: what it is, its media types and the headers that matter. */
export interface OtherAnswer {
  description: string;
  /** Media types it comes in, each with the schema of its body where that is JSON (null: a file or a stream). */
  content?: Record<string, z.ZodType | null>;
  /** Headers it carries and what they hold (a redirect's Location, a download's Content-Disposition). */
  headers?: Record<string, string>;
}

/** Every route the app registered: the security suites enumerate these instead of a hand-kept list. */
export interface RegisteredRoute {
  method: string;
  url: string;
  config: { public?: boolean; tenant?: boolean; doc?: RouteDoc };
}

/**
 * The route options of a family's documented routes: `documented('Services')(summary, capability,
 * responses, extra)` gives `{ config: { doc } }`, with `config` (such as `tenant: false`) added.
 * The body and query schemas keep their types, so `bodyOf(req)` and `queryOf(req)` answer typed values.
 */
export function documented(tag: string, config: { public?: true; tenant?: false } = {}) {
  return <E extends Partial<RouteDoc> = object>(summary: string, capability: string, responses: RouteDoc['responses'], extra?: E) => ({
    config: { ...config, doc: { summary, capability, tags: [tag], responses, ...extra } as RouteDoc & E },
  });
}

/**
 * The capability a route documents: the documented value's leading token when it names one of
 * server/policies/permissions.ts ('platform.manage (a super admin acting as themself)'), else
 * undefined ('public', 'member', a sentence).
 */
export function documentedCapability(doc: Pick<RouteDoc, 'capability'> | undefined): Capability | undefined {
  const token = doc?.capability.trim().split(/[\s(,;]/, 1)[0];
  return token && Object.hasOwn(PERMISSIONS, token) ? (token as Capability) : undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's OpenAPI description. */
    doc?: RouteDoc;
  }
}
