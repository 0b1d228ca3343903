import type { ServicePermissions } from '../../common/permissions';

/*
 * What of a service a caller sees: private aspects and internal snapshots exist only for those who
 * may see them (catalog.viewPrivate on that service); for everyone else they do not exist at all
 * (404, absent from lists, counts, exports and events). Every read asks here.
 */

/** Whether a read holds the service's private aspects: the caller may see them and, where the call asks (showPrivate), asked. */
export function seesPrivate(permissions: ServicePermissions, asked = true): boolean {
  return asked && permissions.canViewPrivate;
}

/** Whether the caller sees an aspect. */
export function seesAspect(permissions: ServicePermissions, aspect: { isPublic: boolean }): boolean {
  return aspect.isPublic || permissions.canViewPrivate;
}

/** Whether the caller sees a snapshot: a public one, or an internal one when they may see private aspects. */
export function seesSnapshot(permissions: ServicePermissions, snapshot: { visibility: string }): boolean {
  return snapshot.visibility === 'public' || permissions.canViewPrivate;
}
