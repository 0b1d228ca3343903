import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { M } from '../../../common/messages';
import { EntraClient, ENTRA_MESSAGES, SIGN_IN_TTL_SECONDS, SignInError, sameText, sha256 } from '../../auth/oidc';
import { createHandoff, EntraAccountError, findOrProvisionEntraUser, redeemHandoff } from '../../commands/entraSignIn';
import { describeSession, openSession } from '../../commands/describeSession';
import { writeAudit } from '../../commands/audit';
import { loadUserWithTenants } from '../../db/queries/users';
import { unauthenticated } from '../../errors';
import { bodyOf } from '../../validation';
import { callbackQuerySchema, exchangeSchema } from './schema';
import { openedSessionSchema } from '../../../common/schemas/auth';
import type { OtherAnswer, RouteDoc } from '../../routeDoc';

/** Binds a sign-in, its callback and the hand-off exchange to one browser. */
export const BROWSER_COOKIE = 'catalog_browser';
/** The sealed state, nonce and PKCE verifier of the sign-in in progress. */
export const SIGN_IN_COOKIE = 'catalog_entra_signin';
const BROWSER_PATH = '/api/auth';
const SIGN_IN_PATH = '/api/auth/entra';
const BROWSER_SECRET = /^[A-Za-z0-9_-]{43}$/;

const tags = ['Sessions'];
/** Where a failed or unconfigured sign-in goes: the login page, with the reason in its query. */
const toLoginPage = 'or to `/login?error=<message>` when Microsoft sign-in is not configured or fails';
const redirect = (description: string, location: string): OtherAnswer => ({ description, headers: { Location: location } });
const signIn: RouteDoc = {
  summary: 'Start Microsoft sign-in (a browser navigation): redirects to the identity provider',
  capability: 'public',
  tags,
  responses: {
    302: redirect(
      'To the identity provider, with a cookie binding the sign-in to this browser',
      `The identity provider's authorization URL (state, nonce, PKCE), ${toLoginPage}`,
    ),
  },
};
const callback: RouteDoc = {
  summary: 'The identity provider returns here: redirects to the app with a one-time code to exchange for the session',
  description: 'A session token never travels in a URL: the page exchanges `auth_token` with POST /api/auth/exchange from the same browser.',
  capability: 'public',
  tags,
  query: callbackQuerySchema,
  responses: {
    302: redirect(
      'To the app with the one-time code',
      `\`/?auth_token=<one-time code, 60 seconds>&auth_data=<JSON: user, tenant, availableTenants, permissions>\`, ${toLoginPage}`,
    ),
  },
};
const exchange = {
  summary: "Exchange the sign-in callback's one-time code for the session, from the browser that signed in",
  capability: 'public',
  tags,
  body: exchangeSchema,
  responses: { 200: openedSessionSchema },
  errors: {
    401: `${ENTRA_MESSAGES.codeInvalid} Or: ${ENTRA_MESSAGES.codeOtherBrowser}`,
    403: M.allTenantsArchived,
  },
} satisfies RouteDoc;

/**
 * Microsoft sign-in (OpenID Connect, authorization code flow with PKCE). The callback never puts a
 * session token in a URL: it hands a one-time code to the page, which exchanges it for the session
 * from the same browser (CONTRACT section 5).
 */
export default async function entraRoutes(app: FastifyInstance) {
  if (!app.hasReplyDecorator('setCookie')) await app.register(cookie);
  const { config } = app;
  const entra = config.entra ? new EntraClient(config.entra, `${config.publicUrl}/api/auth/entra/callback`) : null;
  const cookieBase = { httpOnly: true, sameSite: 'lax' as const, secure: config.publicUrl.startsWith('https:') };

  app.get('/auth/entra/signin', { config: { public: true, tenant: false, doc: signIn } }, async (req, reply) => {
    if (!entra) return toLogin(reply, ENTRA_MESSAGES.notConfigured);
    try {
      const existing = req.cookies[BROWSER_COOKIE];
      const browser = existing && BROWSER_SECRET.test(existing) ? existing : randomBytes(32).toString('base64url');
      const { url, pending } = await entra.start(sha256(browser));
      reply.setCookie(BROWSER_COOKIE, browser, { ...cookieBase, path: BROWSER_PATH, maxAge: SIGN_IN_TTL_SECONDS + 120 });
      reply.setCookie(SIGN_IN_COOKIE, entra.seal(pending), { ...cookieBase, path: SIGN_IN_PATH, maxAge: SIGN_IN_TTL_SECONDS });
      return reply.redirect(url.href);
    } catch (err) {
      return fail(req, reply, err);
    }
  });

  app.get('/auth/entra/callback', { config: { public: true, tenant: false, doc: callback } }, async (req, reply) => {
    const pending = entra?.open(req.cookies[SIGN_IN_COOKIE]) ?? null;
    reply.clearCookie(SIGN_IN_COOKIE, { ...cookieBase, path: SIGN_IN_PATH });
    if (!entra) return toLogin(reply, ENTRA_MESSAGES.notConfigured);
    try {
      const browser = req.cookies[BROWSER_COOKIE];
      const browserHash = browser ? sha256(browser) : null;
      if (!pending) throw new SignInError('state', 'no sign-in in progress in this browser');
      if (!browserHash || !sameText(pending.browser, browserHash)) throw new SignInError('state', 'browser cookie does not match the sign-in');

      const callbackUrl = new URL(entra.redirectUri);
      callbackUrl.search = new URL(req.url, 'http://callback.invalid').search;
      const identity = await entra.finish(callbackUrl, pending);
      const { user, outcome } = await findOrProvisionEntraUser(app.database.db, identity, {
        defaultTenantSlug: config.ENTRA_DEFAULT_TENANT,
        defaultRole: config.ENTRA_DEFAULT_ROLE,
        tenantPinned: Boolean(config.entra?.tenantId),
      });
      const info = await describeSession(app.database.db, user, user.superAdmin);
      if (!info.tenant && !user.superAdmin) throw new EntraAccountError(M.allTenantsArchived, 'every tenant of the user is archived');
      const code = await createHandoff(app.database.db, user.id, browserHash);
      req.log.info({ userId: user.id, outcome }, 'microsoft sign-in verified');
      const query = new URLSearchParams({ auth_token: code, auth_data: JSON.stringify(info) });
      return reply.redirect(`/?${query.toString()}`);
    } catch (err) {
      return fail(req, reply, err);
    }
  });

  app.post('/auth/exchange', { config: { public: true, tenant: false, doc: exchange } }, async (req, reply) => {
    const { code } = bodyOf(req);
    const db = app.database.db;
    const browser = req.cookies[BROWSER_COOKIE];
    const result = await redeemHandoff(db, code, browser ? sha256(browser) : null);
    if (!result.ok) {
      req.log.warn({ reason: result.reason }, 'sign-in code refused');
      await writeAudit(db, null, { tenantId: null, action: 'auth.login_failed', details: { provider: 'entra', reason: `hand-off code ${result.reason}` } });
      throw unauthenticated(result.reason === 'browser' ? ENTRA_MESSAGES.codeOtherBrowser : ENTRA_MESSAGES.codeInvalid);
    }
    const user = await loadUserWithTenants(db, result.userId);
    if (!user) throw unauthenticated(ENTRA_MESSAGES.codeInvalid);
    const session = await openSession(db, app.tokens, config.SESSION_TTL_SECONDS, user, { provider: 'entra' });
    reply.clearCookie(BROWSER_COOKIE, { ...cookieBase, path: BROWSER_PATH });
    return session;
  });

  /** Logs why (never a token or secret), writes the failed sign-in, and shows a readable message on /login. */
  async function fail(req: FastifyRequest, reply: FastifyReply, err: unknown) {
    let message: string = ENTRA_MESSAGES.failed;
    let reason: string;
    if (err instanceof SignInError) {
      message = ENTRA_MESSAGES[err.kind];
      reason = err.reason;
    } else if (err instanceof EntraAccountError) {
      message = err.message;
      reason = err.reason;
    } else {
      reason = err instanceof Error ? `${err.name}: ${err.message}` : 'unknown error';
      req.log.error({ err }, 'microsoft sign-in crashed');
    }
    req.log.warn({ reason }, 'microsoft sign-in failed');
    await writeAudit(app.database.db, null, { tenantId: null, action: 'auth.login_failed', details: { provider: 'entra', reason } }).catch(
      (auditErr: unknown) => req.log.error({ err: auditErr }, 'could not write the failed sign-in'),
    );
    return toLogin(reply, message);
  }
}

function toLogin(reply: FastifyReply, message: string) {
  return reply.redirect(`/login?${new URLSearchParams({ error: message }).toString()}`);
}
