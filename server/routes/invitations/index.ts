import type { FastifyInstance, FastifyRequest } from 'fastify';
import { INVITATION_MESSAGES } from '../../../common/schemas/invitations';
import { idParamSchema } from '../../../common/schemas/users';
import { acceptInvitation, declineInvitation } from '../../commands/invitations';
import { notFound } from '../../errors';
import { requireActor } from '../../plugins/context';
import { presentTenant } from '../../presenters/users';
import { M } from '../../../common/messages';
import { tenantAnswerSchema } from '../../../common/schemas/tenants';
import type { RouteDoc } from '../../routeDoc';
import { requirePerson } from '../../policies';

/** An invitation is answered by the person invited, never by an API token. */
function person(req: FastifyRequest) {
  const actor = requireActor(req);
  requirePerson(actor);
  return actor;
}

function invitationIdOf(req: FastifyRequest): string {
  const parsed = idParamSchema.safeParse(req.params);
  if (!parsed.success) throw notFound(INVITATION_MESSAGES.notFound);
  return parsed.data.id;
}

/**
 * The invitee's answers to an invitation (docs/decisions/0110-user-creation-without-enumeration.md).
 * They are not a member of the inviting tenant yet, so these ignore the tenant header; only the
 * person invited finds the invitation, anyone else gets a 404.
 */
export default async function invitationRoutes(app: FastifyInstance) {
  // The invitee's own: the tenant header is ignored.
  const own = (doc: Omit<RouteDoc, 'capability' | 'tags'>) => ({
    config: { tenant: false, doc: { capability: 'the person invited (never an API token)', tags: ['Invitations'], ...doc } },
  });
  const db = () => app.database.db;

  app.post(
    '/invitations/:id/accept',
    own({
      summary: 'Join the tenant an invitation is for; the account keeps its own role and password',
      responses: { 200: tenantAnswerSchema },
      errors: { 409: M.tenantArchived },
    }),
    async (req) => {
      const tenant = await acceptInvitation(db(), person(req), invitationIdOf(req));
      return { tenant: presentTenant(tenant) };
    },
  );

  app.delete('/invitations/:id', own({ summary: 'Decline an invitation', responses: { 204: null } }), async (req, reply) => {
    await declineInvitation(db(), person(req), invitationIdOf(req));
    return reply.status(204).send();
  });
}
