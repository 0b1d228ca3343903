import { z } from 'zod';

/** Messages of publishing that the specification leaves to the product. */
export const PUBLISHING_MESSAGES = {
  originInvalid: 'Each origin must be a web address such as https://intranet.example.org, without a path',
  tooManyOrigins: 'At most 20 origins may embed the public pages',
  compareFrom: 'Choose the snapshot to compare from',
  compareTo: 'Choose a snapshot, or current for the live catalog, to compare with',
  failedPublish: 'Failed to publish service',
  failedUnpublish: 'Failed to unpublish service',
  failedCompare: 'Failed to compare snapshots',
  failedSaveOrigins: 'Failed to save the origins',
  published: 'Service published.',
  unpublished: 'Service unpublished.',
  originsSaved: 'Origins saved.',
} as const;

export const MAX_EMBED_ORIGINS = 20;

/** An origin as CSP frame-ancestors names it: scheme, host and optional port, nothing else. */
const ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/;

export const embedOriginsSchema = z.object({
  origins: z
    .array(
      z
        .string({ error: PUBLISHING_MESSAGES.originInvalid })
        .trim()
        .toLowerCase()
        .transform((v) => v.replace(/\/$/, ''))
        .pipe(z.string().regex(ORIGIN, PUBLISHING_MESSAGES.originInvalid)),
      { error: PUBLISHING_MESSAGES.originInvalid },
    )
    .max(MAX_EMBED_ORIGINS, PUBLISHING_MESSAGES.tooManyOrigins),
});
export type EmbedOriginsInput = z.infer<typeof embedOriginsSchema>;

/** `GET /api/snapshots/compare?from=&to=`: `to` is a snapshot id or `current` (the live catalog). */
export const compareQuerySchema = z.object({
  from: z.uuid({ error: PUBLISHING_MESSAGES.compareFrom }),
  to: z.union([z.literal('current'), z.uuid()], { error: PUBLISHING_MESSAGES.compareTo }),
});

/** The origins as typed in a text area, one per line. */
export const originLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The Tenant Settings form: the same rules as the request, on the text area's lines. */
export const embedOriginsFormSchema = z.object({
  origins: z.string().superRefine((text, ctx) => {
    const result = embedOriginsSchema.safeParse({ origins: originLines(text) });
    if (!result.success) ctx.addIssue({ code: 'custom', message: result.error.issues[0]!.message });
  }),
});
