import { createHash, randomBytes } from 'node:crypto';

/**
 * API token secrets (docs/decisions/0130-api-tokens.md): `scat_` and 43 base62 characters (256
 * bits). The prefix lets secret scanners find a leaked one and lets the server tell it from a
 * session token without trying to verify it; only its SHA-256 hash is stored.
 */
export const API_TOKEN_PREFIX = 'scat_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LENGTH = 43;
const SHAPE = new RegExp(`^${API_TOKEN_PREFIX}[0-9A-Za-z]{${LENGTH}}$`);
/** How many characters of the secret a list shows. */
const HINT_LENGTH = API_TOKEN_PREFIX.length + 4;

export function newApiTokenSecret(): { secret: string; hash: string; hint: string } {
  let body = '';
  // Rejection sampling keeps every character equally likely.
  while (body.length < LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && body.length < LENGTH) body += ALPHABET[byte % 62];
    }
  }
  const secret = API_TOKEN_PREFIX + body;
  return { secret, hash: hashApiTokenSecret(secret), hint: `${secret.slice(0, HINT_LENGTH)}…` };
}

/** Whether a bearer token is shaped as an API token secret (a session token never is). */
export function isApiTokenSecret(token: string): boolean {
  return token.startsWith(API_TOKEN_PREFIX);
}

export function isWellFormedApiTokenSecret(token: string): boolean {
  return SHAPE.test(token);
}

/** The stored form: a fast hash suffices for 256 random bits (no dictionary to guess from). */
export function hashApiTokenSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
