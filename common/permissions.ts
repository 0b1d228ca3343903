import { z } from 'zod';

/**
 * What the server says a caller may do, so that the web app shows exactly the controls the server
 * will accept. The server decides every call on its own (server/policies); these only describe it.
 */

/** On one service: sent with /full, settings-data and each entry of the service list. */
export const servicePermissionsSchema = z.object({
  canView: z.boolean(),
  canViewPrivate: z.boolean().describe('Private aspects and internal snapshots'),
  canEdit: z.boolean().describe('Categories, aspects, availabilities, reorder (while the service is not archived)'),
  canManageSettings: z.boolean().describe('Service settings: details, actor roles, quick templates, snapshots, exports'),
  canAdmin: z.boolean().describe('User Assignments of this service, archive and unarchive'),
  canHardDelete: z.boolean(),
  canManageUsers: z.boolean().describe("The tenant's users: pick from them, create new ones (a tenant right, never given by an assignment)"),
  canMove: z.boolean().describe('Move the service to another tenant (a tenant right)'),
});
export type ServicePermissions = z.infer<typeof servicePermissionsSchema>;

/** In the tenant the caller works in: sent with the session (login, /auth/me). */
export const tenantPermissionsSchema = z.object({
  canCreateServices: z.boolean().describe('Create and import services'),
  canShowArchived: z.boolean(),
  canManageUsers: z.boolean().describe("The tenant's users and audit log"),
  canOpenTenantSettings: z.boolean().describe('The Tenant Settings page (admins who are not super admins)'),
  canManagePlatform: z.boolean().describe('The Super Admin Panel'),
});
export type TenantPermissions = z.infer<typeof tenantPermissionsSchema>;

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
