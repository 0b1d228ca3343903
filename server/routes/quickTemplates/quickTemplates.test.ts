import { M } from '../../../common/messages';
import { describeServiceList } from '../../test/serviceListSuite';

describeServiceList({
  title: 'quick templates',
  path: '/api/quick-templates',
  field: 'templateText',
  idsField: 'templateIds',
  readField: 'template_text',
  singular: 'template',
  plural: 'templates',
  requiredMessage: M.templateTextRequired,
});
