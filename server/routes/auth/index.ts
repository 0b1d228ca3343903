import type { FastifyInstance } from 'fastify';
import { M } from '../../../common/messages';
import { loginAnswerSchema, loginSchema, meAnswerSchema } from '../../../common/schemas/auth';
import type { RouteDoc } from '../../routeDoc';
import { bodyOf } from '../../validation';
import { tooManyRequests, unauthenticated } from '../../errors';
import { dummyHash, verifyPassword } from '../../auth/passwords';
import { findUserByEmail, loadUserWithTenants } from '../../db/queries/users';
import { describeSession, openSession } from '../../commands/describeSession';
import { loadReceivedInvitations } from '../../commands/invitations';
import { writeAudit } from '../../commands/audit';
import { describeImpersonation, revokeSession } from '../../commands/impersonation';
import { requireActor } from '../../plugins/context';

const tags = ['Sessions'];

const login = {
  summary: 'Sign in with email and password: the session token, the user, the tenant to work in and the tenants to switch to',
  capability: 'public',
  tags,
  body: loginSchema,
  responses: { 200: loginAnswerSchema },
  errors: {
    401: M.invalidCredentials,
    403: M.allTenantsArchived,
    429: `${M.tooManyLoginAttempts} (failed sign-ins of the account or the address); retry after the Retry-After header`,
  },
} satisfies RouteDoc;

export default async function authRoutes(app: FastifyInstance) {
  app.post('/auth/login', { config: { public: true, doc: login } }, async (req, reply) => {
    const input = bodyOf(req);
    const db = app.database.db;
    const verdict = await app.loginLimiter.check(input.email, req.ip);
    if (!verdict.allowed) {
      reply.header('Retry-After', String(verdict.retryAfterSeconds));
      throw tooManyRequests(M.tooManyLoginAttempts);
    }

    const user = await findUserByEmail(db, input.email);
    // Unknown accounts still pay for a hash, so timing does not reveal which emails exist.
    const ok = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash()));
    if (!user || !ok) {
      await app.loginLimiter.recordFailure(input.email, req.ip);
      await writeAudit(db, null, {
        tenantId: user?.tenantId ?? null,
        action: 'auth.login_failed',
        targetType: 'user',
        targetId: user?.id,
        actorEmail: input.email,
      });
      throw unauthenticated(M.invalidCredentials);
    }
    await app.loginLimiter.recordSuccess(input.email, req.ip);

    const full = (await loadUserWithTenants(db, user.id))!;
    const { token, ...info } = await openSession(db, app.tokens, app.config.SESSION_TTL_SECONDS, full);
    return { token, ...info, invitations: await loadReceivedInvitations(db, user.id) };
  });

  app.get(
    '/auth/me',
    {
      config: {
        doc: {
          summary: "The caller's session: user, tenant, tenants to switch to, permissions, pending invitations, and the impersonation when one is active",
          capability: 'member',
          tags,
          responses: { 200: meAnswerSchema },
        },
      },
    },
    async (req) => {
      const actor = requireActor(req);
      const info = await describeSession(app.database.db, actor.user, actor.superAdmin, req.tenant);
      return {
        ...info,
        invitations: await loadReceivedInvitations(app.database.db, actor.user.id),
        ...(await describeImpersonation(app.database.db, actor)),
      };
    },
  );

  app.post(
    '/auth/logout',
    {
      config: {
        tenant: false,
        doc: {
          summary: 'Sign out: the token is revoked at once, with any impersonation started from it',
          capability: 'member',
          tags,
          responses: { 204: null },
        },
      },
    },
    async (req, reply) => {
      const actor = requireActor(req);
      // Ends, with it, any impersonation started from this session.
      await revokeSession(app.database.db, actor);
      await writeAudit(app.database.db, actor, { tenantId: actor.user.tenantId, action: 'auth.logout', targetType: 'user', targetId: actor.user.id });
      return reply.status(204).send();
    },
  );
}
