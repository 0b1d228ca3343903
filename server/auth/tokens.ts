import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

export interface TokenClaims {
  /** The user the token acts as (the impersonated user while impersonating). */
  sub: string;
  jti: string;
  exp: number;
  /** The super admin behind an impersonation token. */
  imp?: string;
  /** The tenant an impersonation was started in. */
  tid?: string;
  /** The id (`jti`) of the super admin's session an impersonation token was started from. */
  sid?: string;
}

export interface SignInput {
  sub: string;
  /** Lifetime from now, in seconds. */
  ttlSeconds: number;
  /** Latest expiry, seconds since the epoch: a token derived from a session never outlives it. */
  notAfter?: number;
  /** Issues the token under an existing session's id, so that revoking either revokes both. */
  jti?: string;
  imp?: string;
  tid?: string;
  sid?: string;
}

const ISSUER = 'service-catalog';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const AUDIENCE = 'service-catalog-api';

/** Tokens already verified, kept until they expire: checking a signature is most of a warm request. */
const VERIFIED_MAX = 10_000;

export class TokenService {
  private readonly key: KeyObject;
  private readonly verified = new Map<string, TokenClaims>();

  constructor(secret: string) {
    this.key = createSecretKey(new TextEncoder().encode(secret));
  }

  async sign(input: SignInput): Promise<{ token: string; jti: string; exp: number }> {
    const jti = input.jti ?? randomUUID();
    const exp = Math.min(Math.floor(Date.now() / 1000) + input.ttlSeconds, input.notAfter ?? Infinity);
    const claims: Record<string, string> = {};
    if (input.imp) claims.imp = input.imp;
    if (input.tid) claims.tid = input.tid;
    if (input.sid) claims.sid = input.sid;
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(input.sub)
      .setJti(jti)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(exp)
      .sign(this.key);
    return { token, jti, exp };
  }

  /** Verifies signature, algorithm, issuer, audience and expiry; answers null for anything wrong. */
  async verify(token: string): Promise<TokenClaims | null> {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp > Date.now() / 1000) return known;
      this.verified.delete(token);
      return null;
    }
    const claims = await this.check(token);
    if (claims) {
      if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, Object.freeze(claims));
    }
    return claims;
  }

  /** The claims of a token `verify` already accepted and that has not expired; undefined otherwise. */
  peek(token: string): TokenClaims | undefined {
    const known = this.verified.get(token);
    return known && known.exp > Date.now() / 1000 ? known : undefined;
  }

  private async check(token: string): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') return null;
      // Ids are uuids; anything else is not a token this server issued.
      if (!UUID.test(payload.sub)) return null;
      if (payload.imp !== undefined && (typeof payload.imp !== 'string' || !UUID.test(payload.imp))) return null;
      if (payload.tid !== undefined && (typeof payload.tid !== 'string' || !UUID.test(payload.tid))) return null;
      if (payload.sid !== undefined && (typeof payload.sid !== 'string' || !UUID.test(payload.sid))) return null;
      return {
        sub: payload.sub,
        jti: payload.jti,
        exp: payload.exp,
        imp: typeof payload.imp === 'string' ? payload.imp : undefined,
        tid: typeof payload.tid === 'string' ? payload.tid : undefined,
        sid: typeof payload.sid === 'string' ? payload.sid : undefined,
      };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
      throw err;
    }
  }
}
