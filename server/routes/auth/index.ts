import type { FastifyInstance } from 'fastify';
import { M } from '../../../common/messages';
import { loginSchema } from '../../../common/schemas/auth';
import { parse } from '../../validation';
import { forbidden, tooManyRequests, unauthenticated } from '../../errors';
import { dummyHash, verifyPassword } from '../../auth/passwords';
import { findUserByEmail, loadUserWithTenants, revokeToken } from '../../db/queries/users';
import { sessionInfo } from '../../commands/sessionInfo';
import { writeAudit } from '../../commands/audit';
import { requireActor } from '../../plugins/context';

export default async function authRoutes(app: FastifyInstance) {
  app.post('/auth/login', { config: { public: true } }, async (req) => {
    const input = parse(loginSchema, req.body);
    const db = app.database.db;
    if (!app.loginLimiter.allowed(input.email, req.ip)) throw tooManyRequests(M.tooManyLoginAttempts);

    const user = await findUserByEmail(db, input.email);
    // Unknown accounts still pay for a hash, so timing does not reveal which emails exist.
    const ok = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash()));
    if (!user || !ok) {
      app.loginLimiter.recordFailure(input.email, req.ip);
      await writeAudit(db, null, {
        tenantId: user?.tenantId ?? null,
        action: 'auth.login_failed',
        targetType: 'user',
        targetId: user?.id,
        actorEmail: input.email,
      });
      throw unauthenticated(M.invalidCredentials);
    }
    app.loginLimiter.recordSuccess(input.email);

    const full = (await loadUserWithTenants(db, user.id))!;
    const info = await sessionInfo(db, full, full.superAdmin);
    if (!info.tenant && !full.superAdmin) throw forbidden(M.allTenantsArchived);
    const { token } = await app.tokens.sign({ sub: user.id, ttlSeconds: app.config.SESSION_TTL_SECONDS });
    await writeAudit(db, null, { tenantId: info.tenant?.id ?? null, action: 'auth.login', targetType: 'user', targetId: user.id, actorId: user.id, actorEmail: user.email });
    return { token, ...info };
  });

  app.get('/auth/me', async (req) => {
    const actor = requireActor(req);
    const info = await sessionInfo(app.database.db, actor.user, actor.superAdmin, req.tenant);
    return {
      ...info,
      ...(actor.impersonator
        ? { impersonating: { isImpersonating: true, impersonator: { id: actor.impersonator.id, name: actor.impersonator.name, email: actor.impersonator.email } } }
        : {}),
    };
  });

  app.post('/auth/logout', { config: { tenant: false } }, async (req, reply) => {
    const actor = requireActor(req);
    await revokeToken(app.database.db, actor.jti, new Date(actor.exp * 1000));
    await writeAudit(app.database.db, actor, { tenantId: actor.user.tenantId, action: 'auth.logout', targetType: 'user', targetId: actor.user.id });
    return reply.status(204).send();
  });
}
