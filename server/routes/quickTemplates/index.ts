import { quickTemplateViewSchema, createQuickTemplateSchema, reorderQuickTemplatesSchema, updateQuickTemplateSchema } from '../../../common/schemas/settings';
import { quickTemplateQueries } from '../../db/queries/orderedTags';
import { presentQuickTemplate } from '../../presenters/settings';
import { tagListRoutes } from '../tagLists';

/** Quick templates of a service (Quick Templates tab, offered in the availability editor): editors and up, never on an archived service. */
export default tagListRoutes({
  path: '/quick-templates',
  text: 'templateText',
  ids: 'templateIds',
  singular: 'template',
  plural: 'templates',
  create: createQuickTemplateSchema,
  update: updateQuickTemplateSchema,
  reorder: reorderQuickTemplatesSchema,
  queries: quickTemplateQueries,
  present: presentQuickTemplate,
  tag: 'Quick templates',
  noun: 'quick template',
  view: quickTemplateViewSchema,
  audit: 'quick_template',
  textOf: (row) => row.templateText,
});
