import { M } from '../../../common/messages';
import { describeServiceList } from '../../test/serviceListSuite';

describeServiceList({
  title: 'actor roles',
  path: '/api/actor-roles',
  field: 'roleName',
  idsField: 'roleIds',
  readField: 'role_name',
  singular: 'role',
  plural: 'roles',
  requiredMessage: M.roleNameRequired,
});
