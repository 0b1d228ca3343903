import { z } from 'zod';

/*
 * Paging of the lists that grow with an installation (docs/decisions/0114-paged-lists.md). A call
 * without a paging parameter answers as before, up to the list's cap; `limit`, a cursor or `search`
 * asks for one page, with the cursor of the next one (null on the last).
 */

/** Users of a tenant, users of the installation, the panel's tenants and API tokens: a page's default and maximum. */
export const USER_PAGE_DEFAULT = 100;
export const USER_PAGE_MAX = 500;
/** Without paging parameters a list of users or tenants answers at most this many rows. */
export const USER_LIST_CAP = 10_000;
/** Without paging parameters a tenant's service list answers at most this many services, by name. */
export const SERVICE_LIST_CAP = 10_000;

/** A tenant's services (the dashboard): a page's default and maximum. */
export const SERVICE_PAGE_DEFAULT = 100;
export const SERVICE_PAGE_MAX = 500;

/** The history of a cell: newest first, this many entries unless `limit` says otherwise. */
export const HISTORY_PAGE_DEFAULT = 100;
export const HISTORY_PAGE_MAX = 1_000;

/** A service's snapshots: all of them up to the cap unless `limit` says otherwise. */
export const SNAPSHOT_LIST_CAP = 1_000;

/** Longest search text accepted: longer is no name or address anyone types. */
export const SEARCH_MAX = 200;

const limitOf = (max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,4}$/, { error: `limit must be a number from 1 to ${max}` })
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, { error: `limit must be a number from 1 to ${max}` })
    .optional();

const search = z
  .string()
  .max(SEARCH_MAX, { error: `search must be at most ${SEARCH_MAX} characters` })
  .transform((s) => s.trim())
  .optional();

const NOT_A_CURSOR = 'after must be a cursor from a previous answer';

/** An opaque cursor: the sort key of the last row of the page before, as base64url JSON; `valid` checks a key the database compares typed. */
const cursorOf = (valid: (key: SortKey) => boolean = () => true) =>
  z
    .string()
    .max(2_000, { error: NOT_A_CURSOR })
    .transform((s, ctx) => {
      const key = decodeCursor(s);
      if (!key || !valid(key)) {
        ctx.addIssue({ code: 'custom', message: NOT_A_CURSOR });
        return z.NEVER;
      }
      return key;
    })
    .optional();
const after = cursorOf();

/** The sort key of a list: name, then a unique text (email or id); or, newest first, a time and an id. */
export type SortKey = [name: string, unique: string];

export function encodeCursor(key: SortKey): string {
  const json = JSON.stringify(key);
  const bytes = new TextEncoder().encode(json);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function decodeCursor(cursor: string): SortKey | null {
  try {
    const bin = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const json = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
    const key: unknown = JSON.parse(json);
    if (Array.isArray(key) && key.length === 2 && key.every((k) => typeof k === 'string')) return [key[0], key[1]];
  } catch {
    // Not a cursor of ours: answered as invalid input below.
  }
  return null;
}

/** GET /api/users and GET /api/admin/users. */
export const userPageQuerySchema = z.object({ search, limit: limitOf(USER_PAGE_MAX), after });
export type UserPageQuery = z.output<typeof userPageQuerySchema>;

/** GET /api/admin/users: also a user group (the panel's group filter). */
export const adminUserPageQuerySchema = userPageQuerySchema.extend({
  group: z.enum(['manual', 'entra_auto'], { error: 'group must be manual or entra_auto' }).optional(),
});
export type AdminUserPageQuery = z.output<typeof adminUserPageQuerySchema>;

/**
 * GET /api/admin/panel-data: the users' page as above (`search`, `limit`, `after`), and the
 * tenants' own (`tenantSearch`, `tenantsLimit`, `tenantsAfter`); each list is paged on its own.
 */
export const panelPageQuerySchema = userPageQuerySchema.extend({
  tenantSearch: search,
  tenantsLimit: limitOf(USER_PAGE_MAX),
  tenantsAfter: after,
});

/** GET /api/services: the page of services (`after` is the name and id of the last service of the page before). */
export const servicePageQuerySchema = z.object({ search, limit: limitOf(SERVICE_PAGE_MAX), after });
export type ServicePageQuery = z.output<typeof servicePageQuerySchema>;

/**
 * Most tenants one look-up by id answers (a user's memberships, the tenants on one screen): 100
 * ids are 3.7 KB of address, well within what a server takes in a request line.
 */
export const TENANT_IDS_MAX = 100;

/**
 * GET /api/admin/tenants: always one page of tenants (name, then id), searched on name or slug;
 * `ids` (comma-separated) answers only those tenants, so that a screen holding tenant ids shows
 * their names without loading every tenant.
 */
export const tenantPageQuerySchema = z.object({
  search,
  limit: limitOf(USER_PAGE_MAX),
  after,
  includeArchived: z
    .enum(['true', 'false', '1', '0'], { error: 'includeArchived must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
  ids: z
    .string()
    .max(TENANT_IDS_MAX * 37, { error: `ids must be at most ${TENANT_IDS_MAX} tenant ids` })
    .transform((s) => (s.trim() ? [...new Set(s.split(',').map((id) => id.trim()))] : []))
    .pipe(
      z
        .array(z.uuid({ error: 'ids must be tenant ids separated by commas' }))
        .max(TENANT_IDS_MAX, { error: `ids must be at most ${TENANT_IDS_MAX} tenant ids` }),
    )
    .optional(),
});
export type TenantPageQuery = z.output<typeof tenantPageQuerySchema>;

/** Without paging parameters, GET /api/admin/api-tokens answers at most this many tokens, newest first. */
export const API_TOKEN_LIST_CAP = 1_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * GET /api/admin/api-tokens: every tenant's tokens newest first, searched on the token's or the
 * tenant's name; `after` is the creation time (microseconds since 1970, as the database keeps it)
 * and id of the last token of the page before. Revoked tokens only with `includeRevoked`.
 */
export const apiTokenPageQuerySchema = z.object({
  search,
  limit: limitOf(USER_PAGE_MAX),
  after: cursorOf(([micros, id]) => /^[0-9]{1,17}$/.test(micros) && UUID.test(id)),
  includeRevoked: z
    .enum(['true', 'false', '1', '0'], { error: 'includeRevoked must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});
export type ApiTokenPageQuery = z.output<typeof apiTokenPageQuerySchema>;

/** True when the caller asked for a page rather than the whole list. */
export function isPaged(q: { search?: string; limit?: number; after?: unknown; group?: string }): boolean {
  return q.search !== undefined || q.limit !== undefined || q.after !== undefined || q.group !== undefined;
}

const idCursor = (what: string) =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, { error: `before must be ${what} id` })
    .transform(Number)
    .optional();

/** GET /api/availabilities/aspect/:id/history. */
export const historyPageQuerySchema = z.object({ limit: limitOf(HISTORY_PAGE_MAX), before: idCursor('a history entry') });

/** A page of an endpoint's delivery log. */
export const DELIVERY_PAGE_DEFAULT = 100;
export const DELIVERY_PAGE_MAX = 500;

/** GET /api/webhooks/:id/deliveries: `before` is the `next_before` of the page before (the last delivery's place in the log). */
export const deliveryPageQuerySchema = z.object({ limit: limitOf(DELIVERY_PAGE_MAX), before: idCursor('a delivery log entry') });

/** GET /api/snapshots/service/:id: `before` is the id of the last snapshot of the page before. */
export const snapshotPageQuerySchema = z.object({
  limit: limitOf(SNAPSHOT_LIST_CAP),
  before: z.uuid({ error: 'before must be a snapshot id' }).optional(),
  /** `public`: the public snapshots only (editors ask whether a published service has an edition). */
  visibility: z.literal('public', { error: 'visibility must be public' }).optional().describe('public: the public snapshots only'),
});

/** The answers' shapes the web app reads. */
export interface ServicePage<T, P> {
  services: T[];
  permissions: P;
  next_after: string | null;
}

export interface UserPage<T> {
  users: T[];
  next_after: string | null;
}

export interface TenantPage<T> {
  tenants: T[];
  next_after: string | null;
}

export interface ApiTokenPage<T> {
  tokens: T[];
  next_after: string | null;
}
