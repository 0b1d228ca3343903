import { z } from 'zod';
import { ENTRA_MESSAGES } from '../../auth/oidc';

/** POST /auth/exchange: the one-time hand-off code from the sign-in callback. */
export const exchangeSchema = z.object({
  code: z.string({ error: ENTRA_MESSAGES.codeRequired }).trim().min(1, ENTRA_MESSAGES.codeRequired).max(200, ENTRA_MESSAGES.codeInvalid),
});
