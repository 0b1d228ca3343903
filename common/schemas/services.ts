import { z } from 'zod';
import { M } from '../messages';
import { MAX_RICH_TEXT_LENGTH, MAX_SLUG_LENGTH, MAX_TEXT_LENGTH, MAX_TIMELINE_QUARTERS } from '../limits';
import { SLUG_PATTERN } from '../slug';
import { QUARTER_PATTERN } from '../quarters';
import { acceptSnakeCase, optionalText, requiredString } from './fields';

/** Icons arrive as data URLs; the server checks their content (CONTRACT section 5). */
const iconField = z
  .string({ error: 'Icon must be an image data URL' })
  .max(200_000, M.invalidImageType)
  .nullish()
  .transform((v) => (v ? v : null));

export const quarterField = z.string({ error: 'Quarter must look like 2025-Q1' }).regex(QUARTER_PATTERN, 'Quarter must look like 2025-Q1');

export const timelineRangeSchema = z
  .object({ first: quarterField, last: quarterField })
  .optional();

const serviceFields = {
  name: requiredString(M.serviceNameRequired),
  description: optionalText(MAX_RICH_TEXT_LENGTH),
  serviceOwner: optionalText(MAX_TEXT_LENGTH),
  subscriptionModel: optionalText(MAX_TEXT_LENGTH),
  iconUrl: iconField.optional(),
};

const snakeTwins = {
  service_owner: 'serviceOwner',
  subscription_model: 'subscriptionModel',
  icon_url: 'iconUrl',
};

export const createServiceSchema = acceptSnakeCase(
  z.object({
    ...serviceFields,
    slug: requiredString(M.slugRequired, MAX_SLUG_LENGTH).regex(SLUG_PATTERN, M.slugPattern),
  }),
  snakeTwins,
);
export type CreateServiceInput = z.infer<typeof createServiceSchema>;

/** Update: the slug never changes; the timeline is a first/last quarter pair. */
export const updateServiceSchema = acceptSnakeCase(
  z.object({
    ...serviceFields,
    timeline: z
      .object({ first: quarterField, last: quarterField })
      .optional(),
  }),
  snakeTwins,
);
export type UpdateServiceInput = z.infer<typeof updateServiceSchema>;

export const MAX_TIMELINE = MAX_TIMELINE_QUARTERS;
