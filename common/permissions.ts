/**
 * What the server says a caller may do, so that the web app shows exactly the controls the server
 * will accept. The server decides every call on its own (server/policies); these only describe it.
 */

/** On one service: sent with /full, settings-data and each entry of the service list. */
export interface ServicePermissions {
  canView: boolean;
  /** Private aspects and internal snapshots. */
  canViewPrivate: boolean;
  /** Categories, aspects, availabilities, reorder (while the service is not archived). */
  canEdit: boolean;
  /** Service settings: details, actor roles, quick templates, snapshots, exports. */
  canManageSettings: boolean;
  /** User Assignments of this service, archive and unarchive. */
  canAdmin: boolean;
  canHardDelete: boolean;
  /** The tenant's users: pick from them, create new ones (a tenant right, never given by an assignment). */
  canManageUsers: boolean;
  /** Move the service to another tenant (a tenant right). */
  canMove: boolean;
}

/** In the tenant the caller works in: sent with the session (login, /auth/me). */
export interface TenantPermissions {
  /** Create and import services. */
  canCreateServices: boolean;
  canShowArchived: boolean;
  /** The tenant's users and audit log. */
  canManageUsers: boolean;
  /** The Tenant Settings page (admins who are not super admins). */
  canOpenTenantSettings: boolean;
  /** The Super Admin Panel. */
  canManagePlatform: boolean;
}

export const NO_SERVICE_PERMISSIONS: ServicePermissions = {
  canView: false,
  canViewPrivate: false,
  canEdit: false,
  canManageSettings: false,
  canAdmin: false,
  canHardDelete: false,
  canManageUsers: false,
  canMove: false,
};
