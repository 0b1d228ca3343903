import type { FastifyInstance, FastifyRequest } from 'fastify';
import { INVITATION_MESSAGES } from '../../../common/schemas/invitations';
import { idParamSchema } from '../../../common/schemas/users';
import { acceptInvitation, declineInvitation } from '../../commands/invitations';
import { notFound } from '../../errors';
import { requireActor } from '../../plugins/context';
import { presentTenant } from '../../presenters/users';

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
  const own = { config: { tenant: false } };
  const db = () => app.database.db;

  app.post('/invitations/:id/accept', own, async (req) => {
    const tenant = await acceptInvitation(db(), requireActor(req), invitationIdOf(req));
    return { tenant: presentTenant(tenant) };
  });

  app.delete('/invitations/:id', own, async (req, reply) => {
    await declineInvitation(db(), requireActor(req), invitationIdOf(req));
    return reply.status(204).send();
  });
}
