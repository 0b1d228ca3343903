import { ROLES, type Role } from '../../common/roles';

/** A role as the screens name it: Reader, Editor, Admin. */
export const roleLabel = (role: Role) => role.charAt(0).toUpperCase() + role.slice(1);

/** Assignment roles offered (spec section 6): admin, editor, reader. */
export const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: roleLabel(r) }));
