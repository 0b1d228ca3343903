import { z } from 'zod';
import { M } from '../messages';
import { MAX_SLUG_LENGTH } from '../limits';
import { SLUG_PATTERN } from '../slug';
import { requiredString } from './fields';
import { isoDateTime } from './api';

export const createTenantSchema = z.object({
  name: requiredString(M.tenantNameRequired),
  slug: requiredString(M.slugRequired, MAX_SLUG_LENGTH).regex(SLUG_PATTERN, M.slugPattern),
});
export type CreateTenantInput = z.infer<typeof createTenantSchema>;

/** Renaming only: a tenant's slug never changes. */
export const updateTenantSchema = z.object({ name: requiredString(M.tenantNameRequired) });

/** A tenant as answered: with both spellings of its creation date (CONTRACT section 2). */
export const tenantViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  archived: z.boolean(),
  created_at: isoDateTime,
  createdAt: isoDateTime,
});
export const tenantAnswerSchema = z.object({ tenant: tenantViewSchema });
/** GET /api/tenants. */
export const tenantListSchema = z.object({ tenants: z.array(tenantViewSchema) });
