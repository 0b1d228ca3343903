import type { FastifyInstance } from 'fastify';
import { startImpersonationSchema, ADMIN_MESSAGES } from '../../../common/schemas/users';
import { forbidden } from '../../errors';
import { requireActor } from '../../plugins/context';
import { requirePlatform } from '../../policies';
import { parse } from '../../validation';
import { findImpersonationReason, startImpersonation, stopImpersonation } from '../../commands/impersonation';

/** Impersonation: a super admin acting as themself starts it; the impersonation token stops it. */
export default async function impersonationRoutes(app: FastifyInstance) {
  const cross = { config: { tenant: false } };

  app.post('/impersonation/start', cross, async (req) => {
    const actor = requireActor(req);
    // An impersonation token never starts another one.
    if (actor.impersonator) throw forbidden(ADMIN_MESSAGES.nestedImpersonation);
    requirePlatform(actor);
    const input = parse(startImpersonationSchema, req.body);
    return startImpersonation(app, actor, input);
  });

  app.get('/impersonation/active', cross, async (req) => {
    const actor = requireActor(req);
    return {
      isImpersonating: Boolean(actor.impersonator),
      impersonatedUser: actor.impersonator ? { id: actor.user.id, name: actor.user.name, email: actor.user.email } : null,
      impersonator: actor.impersonator ? { id: actor.impersonator.id, name: actor.impersonator.name, email: actor.impersonator.email } : null,
      reason: await findImpersonationReason(app.database.db, actor),
    };
  });

  app.post('/impersonation/stop', cross, async (req) => {
    return stopImpersonation(app, requireActor(req));
  });
}
