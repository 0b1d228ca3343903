import type { FastifyInstance } from 'fastify';
import { startImpersonationSchema, ADMIN_MESSAGES } from '../../../common/schemas/users';
import { impersonationStartSchema, impersonationStatusSchema, openedSessionSchema } from '../../../common/schemas/auth';
import { M } from '../../../common/messages';
import type { RouteDoc } from '../../routeDoc';
import { requireActor } from '../../plugins/context';
import { requireMayStartImpersonation } from '../../policies';
import { bodyOf } from '../../validation';
import { findImpersonationReason, startImpersonation, stopImpersonation } from '../../commands/impersonation';

/** Impersonation: a super admin acting as themself starts it; the impersonation token stops it. */
export default async function impersonationRoutes(app: FastifyInstance) {
  const cross = <D extends Omit<RouteDoc, 'tags'>>(doc: D) => ({ config: { tenant: false as const, doc: { tags: ['Impersonation'], ...doc } } });

  app.post(
    '/impersonation/start',
    cross({
      summary: "Act as a member of a tenant: an impersonation token with exactly that user's rights, and their session",
      capability: 'platform.manage (a super admin acting as themself)',
      body: startImpersonationSchema,
      responses: { 200: impersonationStartSchema },
      errors: { 409: M.tenantArchived },
    }),
    async (req) => {
      const actor = requireActor(req);
      requireMayStartImpersonation(actor);
      const input = bodyOf(req);
      return startImpersonation(app, actor, input);
    },
  );

  app.get(
    '/impersonation/active',
    cross({
      summary: 'Whether the caller acts through an impersonation token, as whom, for whom and why',
      capability: 'member',
      responses: { 200: impersonationStatusSchema },
    }),
    async (req) => {
      const actor = requireActor(req);
      return {
        isImpersonating: Boolean(actor.impersonator),
        impersonatedUser: actor.impersonator ? { id: actor.user.id, name: actor.user.name, email: actor.user.email } : null,
        impersonator: actor.impersonator ? { id: actor.impersonator.id, name: actor.impersonator.name, email: actor.impersonator.email } : null,
        reason: await findImpersonationReason(app.database.db, actor),
      };
    },
  );

  app.post(
    '/impersonation/stop',
    cross({
      summary: "Stop impersonating: the super admin's own session back (from the impersonation token, or from the super admin's own)",
      capability: 'member (the impersonation token, or the super admin who started it)',
      responses: { 200: openedSessionSchema },
      errors: { 409: ADMIN_MESSAGES.notImpersonating },
    }),
    async (req) => {
      return stopImpersonation(app, requireActor(req));
    },
  );
}
