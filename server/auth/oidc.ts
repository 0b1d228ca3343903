import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import type { Config } from '../config';

/** What a person sees (on the login page or from the exchange) when Microsoft sign-in fails. */
export const ENTRA_MESSAGES = {
  notConfigured: 'Microsoft sign-in is not configured',
  unavailable: 'Microsoft sign-in is unavailable right now. Please try again later.',
  state: 'This Microsoft sign-in was not started in this browser or has expired. Please try again.',
  cancelled: 'Microsoft sign-in was cancelled.',
  verification: 'The answer from Microsoft could not be verified. Please try again.',
  tenant: 'Your Microsoft account belongs to an organisation that may not sign in here.',
  localAccount: 'An account with this email signs in with a password. Sign in with your email and password instead.',
  linkedElsewhere: 'An account with this email is already linked to another Microsoft account.',
  unverifiedEmail: 'An account with this email exists, but Microsoft did not confirm the address. Ask your administrator to link your account.',
  missingEmail: 'Your Microsoft account has no email address, so no account can be created for it.',
  noDefaultTenant: 'Microsoft sign-in is not set up correctly: the organisation for new users does not exist.',
  failed: 'Microsoft sign-in failed. Please try again.',
  codeRequired: 'Sign-in code is required',
  codeInvalid: 'This sign-in link is invalid, already used or expired. Please sign in again.',
  codeOtherBrowser: 'This sign-in link belongs to another browser. Please sign in again.',
} as const;

export type EntraSettings = NonNullable<Config['entra']>;

/** Scopes that make Microsoft Entra put tid, oid, name, preferred_username and email in the ID token. */
const SCOPES = 'openid profile email';
/** How long a started sign-in may take at the identity provider. */
export const SIGN_IN_TTL_SECONDS = 10 * 60;

/** What the browser keeps (sealed, in an httpOnly cookie) between the redirect and the callback. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  /** Hash of the browser-binding secret the sign-in was started with. */
  browser: string;
  /** Expiry, milliseconds since the epoch. */
  exp: number;
}

/** The claims of a verified ID token the product uses. */
export interface EntraIdentity {
  /** Issuer tenant (Entra `tid`; the issuer itself for providers without one). */
  tid: string;
  /** Object id (Entra `oid`; `sub` for providers without one). */
  oid: string;
  email: string | null;
  emailVerified: boolean;
  preferredUsername: string | null;
  name: string | null;
}

/** Why a sign-in failed: `reason` is logged, `kind` picks the message the person sees. */
export class SignInError extends Error {
  constructor(
    readonly kind: 'state' | 'cancelled' | 'verification' | 'tenant' | 'unavailable',
    readonly reason: string,
  ) {
    super(reason);
  }
}

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The OpenID Connect client for Microsoft Entra (or any issuer in tests): discovery once, then the
 * authorization code flow with PKCE (S256), state and nonce. openid-client checks the state, the
 * issuer (metadata, `iss` response parameter and ID token), the audience, the signature, expiry and
 * nonce of the ID token, and the PKCE verifier is checked by the provider's token endpoint.
 */
export class EntraClient {
  private discovered: Promise<client.Configuration> | null = null;
  private readonly sealKey: Buffer;

  constructor(
    readonly settings: EntraSettings,
    readonly redirectUri: string,
  ) {
    // Sign-in cookies are sealed with a key derived from the client secret, which every instance shares.
    this.sealKey = Buffer.from(hkdfSync('sha256', settings.clientSecret, 'service-catalog', 'entra sign-in cookie', 32));
  }

  /** Discovers the issuer once; a failed discovery is retried on the next sign-in. */
  configuration(): Promise<client.Configuration> {
    if (!this.discovered) {
      const { issuer, clientId, clientSecret } = this.settings;
      // Plain http is accepted only for a provider on this machine (local development and tests).
      const url = new URL(issuer);
      const insecure = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
      this.discovered = client
        .discovery(url, clientId, { client_secret: clientSecret }, client.ClientSecretPost(clientSecret), {
          execute: insecure ? [client.allowInsecureRequests] : [],
        })
        .catch((err: unknown) => {
          this.discovered = null;
          throw new SignInError('unavailable', `discovery failed: ${describe(err)}`);
        });
    }
    return this.discovered;
  }

  /** Starts a sign-in: the provider URL to redirect to and what must come back with the answer. */
  async start(browserHash: string): Promise<{ url: URL; pending: PendingSignIn }> {
    const config = await this.configuration();
    const verifier = client.randomPKCECodeVerifier();
    const pending: PendingSignIn = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier,
      browser: browserHash,
      exp: Date.now() + SIGN_IN_TTL_SECONDS * 1000,
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: SCOPES,
      response_type: 'code',
      response_mode: 'query',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url, pending };
  }

  /** Completes a sign-in from the callback URL; throws SignInError for anything that does not verify. */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<EntraIdentity> {
    const config = await this.configuration();
    const state = callbackUrl.searchParams.get('state');
    if (!state || !sameText(state, pending.state)) throw new SignInError('state', state ? 'state does not match' : 'state missing');
    const error = callbackUrl.searchParams.get('error');
    if (error) throw new SignInError(error === 'access_denied' ? 'cancelled' : 'verification', `provider answered ${error}`);

    let claims: client.IDToken | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (err) {
      throw new SignInError('verification', describe(err));
    }
    if (!claims) throw new SignInError('verification', 'no ID token');

    const tid = typeof claims.tid === 'string' ? claims.tid : null;
    if (this.settings.tenantId && tid !== this.settings.tenantId) {
      throw new SignInError('tenant', `tid ${tid ?? '(none)'} is not the configured tenant`);
    }
    const oid = typeof claims.oid === 'string' ? claims.oid : claims.sub;
    return {
      tid: tid ?? claims.iss,
      oid,
      email: typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : null,
      emailVerified: claims.email_verified === true || claims.xms_edov === true,
      preferredUsername: typeof claims.preferred_username === 'string' ? claims.preferred_username.trim().toLowerCase() : null,
      name: typeof claims.name === 'string' ? claims.name.trim() : null,
    };
  }

  /** Seals a pending sign-in (AES-256-GCM) so the browser can carry it without reading or changing it. */
  seal(pending: PendingSignIn): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(pending), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** Opens a sealed pending sign-in; null when missing, altered or expired. */
  open(sealed: string | undefined): PendingSignIn | null {
    if (!sealed || sealed.length > 4096) return null;
    try {
      const raw = Buffer.from(sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      const pending = JSON.parse(text) as PendingSignIn;
      if (typeof pending.exp !== 'number' || pending.exp < Date.now()) return null;
      return pending;
    } catch {
      return null;
    }
  }
}

/** An error's name, code and message, for logs (never tokens or secrets). */
function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown; error?: unknown }).error ?? (err as { code?: unknown }).code;
    return `${err.name}${code ? ` (${String(code)})` : ''}: ${err.message}`;
  }
  return String(err);
}
