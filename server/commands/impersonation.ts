import type { FastifyInstance } from 'fastify';
import type { Executor } from '../db';
import { findTenantById, loadUserWithTenants, revokeToken } from '../db/queries/users';
import { activeImpersonations, endImpersonation, insertImpersonation } from '../db/queries/admin';
import { conflict, forbidden, invalid, notFound } from '../errors';
import { M } from '../../common/messages';
import { ADMIN_MESSAGES, type StartImpersonationInput } from '../../common/schemas/users';
import type { Actor } from '../plugins/context';
import { presentTenant, presentUser } from '../presenters/users';
import { sessionInfo } from './sessionInfo';
import { writeAudit } from './audit';

/**
 * A super admin starts acting as a member of a tenant. The token carries both people and expires
 * sooner than a session; its rights are exactly the impersonated user's. Any earlier impersonation
 * of the same super admin ends, so at most one is active.
 */
export async function startImpersonation(app: FastifyInstance, actor: Actor, input: StartImpersonationInput) {
  const db = app.database.db;
  if (input.userId === actor.user.id) throw invalid(ADMIN_MESSAGES.cannotImpersonateSelf, 'userId');
  const [target, tenant] = await Promise.all([loadUserWithTenants(db, input.userId), findTenantById(db, input.tenantId)]);
  if (!target) throw notFound(ADMIN_MESSAGES.userNotFound);
  if (!tenant) throw notFound(ADMIN_MESSAGES.tenantNotFound);
  if (target.superAdmin) throw forbidden(ADMIN_MESSAGES.cannotImpersonateSuperAdmin);
  if (!target.tenantIds.includes(tenant.id)) throw invalid(ADMIN_MESSAGES.notTenantMember, 'tenantId');
  if (tenant.archived) throw conflict(M.tenantArchived);

  const ttl = app.config.IMPERSONATION_TTL_SECONDS;
  const signed = await app.tokens.sign({ sub: target.id, imp: actor.user.id, tid: tenant.id, ttlSeconds: ttl });
  const record = await db.transaction(async (tx) => {
    await endAll(tx, actor.user.id);
    const row = await insertImpersonation(tx, {
      superAdminId: actor.user.id,
      impersonatedUserId: target.id,
      tenantId: tenant.id,
      tokenJti: signed.jti,
      expiresAt: new Date(signed.exp * 1000),
    });
    await writeAudit(tx, actor, {
      tenantId: tenant.id,
      action: 'impersonation.start',
      targetType: 'user',
      targetId: target.id,
      details: { impersonationId: row.id, superAdminId: actor.user.id, impersonatedUserId: target.id },
    });
    return row;
  });
  const info = await sessionInfo(db, target, false, tenant);
  return {
    token: signed.token,
    impersonation: {
      id: record.id,
      impersonated_user: presentUser(target, info.user.tenant_name),
      tenant: presentTenant(tenant),
      started_at: record.startedAt.toISOString(),
      expires_at: record.expiresAt.toISOString(),
    },
    ...info,
    impersonating: impersonatingOf(actor.user),
  };
}

function impersonatingOf(superAdmin: { id: string; name: string; email: string }) {
  return { isImpersonating: true, impersonator: { id: superAdmin.id, name: superAdmin.name, email: superAdmin.email } };
}

async function endAll(tx: Executor, superAdminId: string) {
  const active = await activeImpersonations(tx, superAdminId);
  for (const { impersonation } of active) {
    await revokeToken(tx, impersonation.tokenJti, impersonation.expiresAt);
    await endImpersonation(tx, impersonation.tokenJti);
  }
  return active;
}

/**
 * Ends an impersonation and gives the super admin their own session back. Called with the
 * impersonation token, it revokes that token; called by a super admin with their own token, it
 * ends every impersonation they left running elsewhere.
 */
export async function stopImpersonation(app: FastifyInstance, actor: Actor) {
  const db = app.database.db;
  let superAdmin = actor.impersonator;
  if (superAdmin) {
    await db.transaction(async (tx) => {
      await revokeToken(tx, actor.jti, new Date(actor.exp * 1000));
      const row = await endImpersonation(tx, actor.jti);
      await writeAudit(tx, actor, {
        tenantId: actor.impersonationTenantId,
        action: 'impersonation.stop',
        targetType: 'user',
        targetId: actor.user.id,
        details: { impersonationId: row?.id ?? null, superAdminId: superAdmin!.id, impersonatedUserId: actor.user.id },
      });
    });
  } else {
    if (!actor.superAdmin) throw conflict(ADMIN_MESSAGES.notImpersonating);
    superAdmin = actor.user;
    await db.transaction(async (tx) => {
      const ended = await endAll(tx, actor.user.id);
      if (ended.length === 0) throw conflict(ADMIN_MESSAGES.notImpersonating);
      for (const { impersonation } of ended) {
        await writeAudit(tx, actor, {
          tenantId: impersonation.tenantId,
          action: 'impersonation.stop',
          targetType: 'user',
          targetId: impersonation.impersonatedUserId,
          details: { impersonationId: impersonation.id, superAdminId: actor.user.id, impersonatedUserId: impersonation.impersonatedUserId },
        });
      }
    });
  }
  const own = await loadUserWithTenants(db, superAdmin.id);
  if (!own) throw notFound(ADMIN_MESSAGES.userNotFound);
  const { token } = await app.tokens.sign({ sub: own.id, ttlSeconds: app.config.SESSION_TTL_SECONDS });
  return { token, ...(await sessionInfo(db, own, own.superAdmin)) };
}
