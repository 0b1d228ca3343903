import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The row-level security scope the database applies to a query (docs/decisions/0004-row-level-security.md).
 * - tenant: only that tenant's rows of every tenant-owned table are visible or writable;
 * - system: every tenant's rows (signing in, resolving a session, super admin work across tenants);
 * - none: no tenant-owned rows at all.
 */
export type DbScope = { kind: 'tenant'; tenantId: string } | { kind: 'system' } | { kind: 'none' };

export const SYSTEM_SCOPE: DbScope = { kind: 'system' };
export const NO_SCOPE: DbScope = { kind: 'none' };

const storage = new AsyncLocalStorage<DbScope>();

/** The scope of the code running now; outside any request or explicit scope it is the system scope. */
export function currentScope(): DbScope {
  return storage.getStore() ?? SYSTEM_SCOPE;
}

export function tenantScope(tenantId: string): DbScope {
  return { kind: 'tenant', tenantId };
}

/** Runs `fn` (and everything it starts) with `scope`. */
export function withScope<T>(scope: DbScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** Runs `fn` across tenants: for the few operations that must (moving a service to another tenant). */
export function asSystem<T>(fn: () => T): T {
  return storage.run(SYSTEM_SCOPE, fn);
}

/** The values of the database settings the row-level security policies read. */
export function scopeSettings(scope: DbScope): { scope: string; tenantId: string } {
  if (scope.kind === 'tenant') return { scope: 'tenant', tenantId: scope.tenantId };
  return { scope: scope.kind, tenantId: '' };
}

export function scopeKey(scope: DbScope): string {
  return scope.kind === 'tenant' ? `tenant:${scope.tenantId}` : scope.kind;
}

/** The role the application works as: it owns nothing, so it cannot bypass row-level security. */
export const APP_ROLE = 'catalog_app';
/** The role of the system scope: a member of APP_ROLE that a policy of its own lets see every tenant's rows (migration 0016). */
export const SYSTEM_ROLE = 'catalog_system';

/** The role a connection works as in a scope: the system scope's own, the application's otherwise. */
export function roleOf(scope: DbScope): string {
  return scope.kind === 'system' ? SYSTEM_ROLE : APP_ROLE;
}
