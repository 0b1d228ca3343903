import { ROLES } from '../../../common/roles';

/** Assignment roles offered (spec section 6): admin, editor, reader. */
export const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: r[0]!.toUpperCase() + r.slice(1) }));
