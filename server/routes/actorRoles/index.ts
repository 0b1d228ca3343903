import { actorRoleViewSchema, createActorRoleSchema, reorderActorRolesSchema, updateActorRoleSchema } from '../../../common/schemas/settings';
import { actorRoleQueries } from '../../db/queries/orderedTags';
import { presentActorRole } from '../../presenters/settings';
import { tagListRoutes } from '../tagLists';

/** Actor roles of a service (Actor Roles tab): editors and up, never on an archived service. */
export default tagListRoutes({
  path: '/actor-roles',
  text: 'roleName',
  ids: 'roleIds',
  singular: 'role',
  plural: 'roles',
  create: createActorRoleSchema,
  update: updateActorRoleSchema,
  reorder: reorderActorRolesSchema,
  queries: actorRoleQueries,
  present: presentActorRole,
  tag: 'Actor roles',
  noun: 'actor role',
  view: actorRoleViewSchema,
  audit: 'actor_role',
  textOf: (row) => row.roleName,
});
