import { z } from 'zod';
import { ENTRA_MESSAGES } from '../../auth/oidc';

/** POST /auth/exchange: the one-time hand-off code from the sign-in callback. */
export const exchangeSchema = z.object({
  code: z.string({ error: ENTRA_MESSAGES.codeRequired }).trim().min(1, ENTRA_MESSAGES.codeRequired).max(200, ENTRA_MESSAGES.codeInvalid),
});

/** The callback's query as the identity provider sends it; read by the OpenID Connect client (server/auth/oidc.ts). */
export const callbackQuerySchema = z.object({
  code: z.string().optional().describe('The authorization code'),
  state: z.string().optional().describe('The state the sign-in started with'),
  error: z.string().optional().describe('Why the identity provider refused, instead of a code'),
  error_description: z.string().optional(),
});
