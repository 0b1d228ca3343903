import { z } from 'zod';

/*
 * What every answer of the API shares, as the OpenAPI document (server/openapi.ts) describes it and
 * the tests check every real answer against it.
 */

/** A date and time as the API writes it: ISO 8601 in UTC (CONTRACT section 2). */
export const isoDateTime = z.iso.datetime();

/** Every error: a message for people, a code for programs, the field at fault; some add fields of their own (a 409's `current`). */
export const apiErrorSchema = z.looseObject({
  error: z.string().describe('A message for people'),
  code: z.string().describe('invalid, unauthenticated, forbidden, not_found, conflict, too_large, rate_limited, unavailable, ...'),
  field: z.string().optional().describe('The field at fault'),
});
export type ApiError = z.infer<typeof apiErrorSchema>;
