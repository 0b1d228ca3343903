import { z } from 'zod';
import { M } from '../messages';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../limits';
import { EMAIL_PATTERN, requiredString } from './fields';

export const loginSchema = z.object({
  email: requiredString(M.emailPasswordRequired, MAX_EMAIL_LENGTH)
    .transform((v) => v.toLowerCase())
    .refine((v) => EMAIL_PATTERN.test(v), M.invalidEmail),
  password: z.string({ error: M.emailPasswordRequired }).min(1, M.emailPasswordRequired).max(MAX_PASSWORD_LENGTH, M.invalidCredentials),
});
export type LoginInput = z.infer<typeof loginSchema>;
