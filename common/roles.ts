export const ROLES = ['reader', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { reader: 0, editor: 1, admin: 2 };

export function roleRank(role: Role): number {
  return RANK[role];
}

/** The higher of two roles: a service assignment raises a user's rights, never lowers them. */
export function higherRole(a: Role, b: Role | null | undefined): Role {
  if (!b) return a;
  return RANK[b] > RANK[a] ? b : a;
}

export const USER_GROUPS = ['manual', 'entra_auto'] as const;
export type UserGroup = (typeof USER_GROUPS)[number];
export const AUTH_PROVIDERS = ['local', 'entra'] as const;
export type AuthProvider = (typeof AUTH_PROVIDERS)[number];
export const SNAPSHOT_VISIBILITIES = ['internal', 'public'] as const;
export type SnapshotVisibility = (typeof SNAPSHOT_VISIBILITIES)[number];
