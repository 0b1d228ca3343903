/**
 * The permission table of spec section 6 (with CONTRACT section 4), as data. Each capability says
 * which rungs hold it. A super admin is its own predicate, not a fifth role: while impersonating,
 * the actor is the impersonated user and never a super admin.
 */
export const RUNGS = ['reader', 'editor', 'admin', 'superAdmin'] as const;
export type Rung = (typeof RUNGS)[number];

export const PERMISSIONS = {
  /** View catalog. */
  'catalog.view': { reader: true, editor: true, admin: true, superAdmin: true },
  /** Edit categories, aspects, availabilities, reorder (service not archived). */
  'catalog.edit': { reader: false, editor: true, admin: true, superAdmin: true },
  /** Open service settings, manage actor roles and quick templates, edit details, create snapshots, export CSV, export service. */
  'service.settings': { reader: false, editor: true, admin: true, superAdmin: true },
  /** User Assignments tab, archive, unarchive, move, create users, import and create services. */
  'service.admin': { reader: false, editor: false, admin: true, superAdmin: true },
  /** Show Archived on the dashboard (CONTRACT section 4: admins too, so they can unarchive). */
  'services.showArchived': { reader: false, editor: false, admin: true, superAdmin: true },
  /** Permanent delete of services. */
  'services.hardDelete': { reader: false, editor: false, admin: false, superAdmin: true },
  /** Tenant Settings page (tenant user management) for an admin who is not a super admin. */
  'tenantSettings.page': { reader: false, editor: false, admin: true, superAdmin: false },
  /** The tenant-user calls behind that page (/users); super admins run users everywhere. */
  'tenant.users': { reader: false, editor: false, admin: true, superAdmin: true },
  /** Super Admin Panel: manage tenants and users, memberships, impersonate. */
  'platform.manage': { reader: false, editor: false, admin: false, superAdmin: true },
} as const satisfies Record<string, Record<Rung, boolean>>;

export type Capability = keyof typeof PERMISSIONS;
