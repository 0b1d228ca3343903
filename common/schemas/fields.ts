import { z } from 'zod';
import { M } from '../messages';
import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../limits';
import { ROLES } from '../roles';

/** A basic email pattern: something@something.tld, no spaces. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A trimmed string that must not be empty; the message is used for missing, wrong-typed and empty values. */
export function requiredString(message: string, max = MAX_NAME_LENGTH) {
  return z.string({ error: message }).trim().min(1, message).max(max, `Must be at most ${max} characters`);
}

/** An optional free text; null and missing both become undefined. */
export function optionalText(max: number) {
  return z
    .string({ error: 'Must be text' })
    .max(max, `Must be at most ${max} characters`)
    .nullish()
    .transform((v) => v ?? undefined);
}

export function emailField(requiredMessage: string) {
  return requiredString(requiredMessage, MAX_EMAIL_LENGTH)
    .transform((v) => v.toLowerCase())
    .refine((v) => EMAIL_PATTERN.test(v), M.invalidEmail);
}

export const passwordField = z
  .string({ error: M.passwordMin })
  .min(MIN_PASSWORD_LENGTH, M.passwordMin)
  .max(MAX_PASSWORD_LENGTH, `Password must be at most ${MAX_PASSWORD_LENGTH} characters`);

/** An empty password means "none given" (forms send ''); otherwise it must meet the minimum. */
export const optionalPasswordField = z
  .union([z.literal(''), z.null(), passwordField], { error: M.passwordMin })
  .optional()
  .transform((v) => (v ? v : undefined));

export const roleField = (message: string = M.selectRole) => z.enum(ROLES, { error: message });

export const uuidField = (message: string) => z.uuid({ error: message });

/**
 * The contract accepts the spec's snake_case request fields and their camelCase twins.
 * This copies each snake_case key onto its camelCase twin when the twin is absent.
 */
export function acceptSnakeCase<T extends z.ZodType>(schema: T, pairs: Record<string, string>) {
  return z.preprocess((input) => {
    if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
    const copy: Record<string, unknown> = { ...(input as Record<string, unknown>) };
    for (const [snake, camel] of Object.entries(pairs)) {
      if (copy[camel] === undefined && copy[snake] !== undefined) copy[camel] = copy[snake];
      delete copy[snake];
    }
    return copy;
  }, schema);
}
