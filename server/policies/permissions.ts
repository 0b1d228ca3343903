/**
 * The permission table of spec section 6 (with CONTRACT section 4), as data. Each capability says
 * where it applies and which rungs hold it. A super admin is its own predicate, not a fifth role:
 * while impersonating, the actor is the impersonated user and never a super admin.
 *
 * Where a capability applies decides whether a service role assignment counts:
 * - `service`: rights on one service; an assignment on that service raises (never lowers) the
 *   caller's tenant role there (CONTRACT section 4: "on that one service").
 * - `tenant`: rights over the whole tenant (its users, creating, importing and moving services);
 *   no service assignment ever gives them.
 * - `platform`: the super admin's rights across tenants.
 */
export const RUNGS = ['reader', 'editor', 'admin', 'superAdmin'] as const;
export type Rung = (typeof RUNGS)[number];

export type CapabilityScope = 'service' | 'tenant' | 'platform';

type Row = { scope: CapabilityScope } & Record<Rung, boolean>;

export const PERMISSIONS = {
  /** View catalog. */
  'catalog.view': { scope: 'service', reader: true, editor: true, admin: true, superAdmin: true },
  /** See private aspects and internal snapshots (readers never receive them: CONTRACT section 4). */
  'catalog.viewPrivate': { scope: 'service', reader: false, editor: true, admin: true, superAdmin: true },
  /** Edit categories, aspects, availabilities, reorder (service not archived). */
  'catalog.edit': { scope: 'service', reader: false, editor: true, admin: true, superAdmin: true },
  /** Open service settings, manage actor roles and quick templates, edit details, create snapshots, export CSV, export service. */
  'service.settings': { scope: 'service', reader: false, editor: true, admin: true, superAdmin: true },
  /** User Assignments tab of the service, archive, unarchive. */
  'service.admin': { scope: 'service', reader: false, editor: false, admin: true, superAdmin: true },
  /** Permanent delete of services. */
  'services.hardDelete': { scope: 'service', reader: false, editor: false, admin: false, superAdmin: true },
  /** Create and import services, move a service to another tenant. */
  'tenant.services': { scope: 'tenant', reader: false, editor: false, admin: true, superAdmin: true },
  /** Show Archived on the dashboard (CONTRACT section 4: admins too, so they can unarchive). */
  'services.showArchived': { scope: 'tenant', reader: false, editor: false, admin: true, superAdmin: true },
  /** The tenant's users: list, create (from Tenant Settings or a service's Create New User), delete; the tenant's audit log. */
  'tenant.users': { scope: 'tenant', reader: false, editor: false, admin: true, superAdmin: true },
  /** The origins allowed to embed the tenant's public pages (docs/decisions/0120-public-pages.md). */
  'tenant.publishing': { scope: 'tenant', reader: false, editor: false, admin: true, superAdmin: true },
  /** Tenant Settings page (tenant user management) for an admin who is not a super admin. */
  'tenantSettings.page': { scope: 'tenant', reader: false, editor: false, admin: true, superAdmin: false },
  /** Super Admin Panel: manage tenants and users, memberships, impersonate. */
  'platform.manage': { scope: 'platform', reader: false, editor: false, admin: false, superAdmin: true },
} as const satisfies Record<string, Row>;

export type Capability = keyof typeof PERMISSIONS;
export type ServiceCapability = { [K in Capability]: (typeof PERMISSIONS)[K]['scope'] extends 'service' ? K : never }[Capability];
export type TenantCapability = Exclude<Capability, ServiceCapability>;
