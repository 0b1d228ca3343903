import { z } from 'zod';
import { M } from '../messages';
import { MAX_SLUG_LENGTH } from '../limits';
import { SLUG_PATTERN } from '../slug';
import { requiredString } from './fields';

export const createTenantSchema = z.object({
  name: requiredString(M.tenantNameRequired),
  slug: requiredString(M.slugRequired, MAX_SLUG_LENGTH).regex(SLUG_PATTERN, M.slugPattern),
});
export type CreateTenantInput = z.infer<typeof createTenantSchema>;

/** Renaming only: a tenant's slug never changes. */
export const updateTenantSchema = z.object({ name: requiredString(M.tenantNameRequired) });
