import type { FastifyInstance } from 'fastify';
import type { Executor } from '../db';
import { asSystem } from '../db/scope';
import { findTenantById, loadUserWithTenants, revokeToken, type ImpersonationRow } from '../db/queries/users';
import { activeImpersonations, emailsOf, findImpersonationByToken, insertImpersonation } from '../db/queries/admin';
import { conflict, notFound } from '../errors';
import { ADMIN_MESSAGES, type StartImpersonationInput } from '../../common/schemas/users';
import type { Actor } from '../plugins/context';
import { presentTenant, presentUser } from '../presenters/users';
import { describeSession } from './describeSession';
import { requireImpersonable, requireMayImpersonate } from '../policies';
import { writeAudit } from './audit';

/** Why an impersonation ended, as its stop audit row says. */
export type ImpersonationEnd = 'stopped' | 'signed_out' | 'replaced';

/**
 * A super admin starts acting as a member of a tenant. The token carries both people and expires
 * sooner than a session; its rights are exactly the impersonated user's. It is bound to the super
 * admin's session that started it: it never outlives that session and dies when it is revoked.
 * Any earlier impersonation of the same super admin ends, so at most one is active.
 */
export async function startImpersonation(app: FastifyInstance, actor: Actor, input: StartImpersonationInput) {
  const db = app.database.db;
  requireMayImpersonate(actor, input.userId);
  const { target, tenant } = requireImpersonable(...(await Promise.all([loadUserWithTenants(db, input.userId), findTenantById(db, input.tenantId)])));

  const signed = await app.tokens.sign({
    sub: target.id,
    imp: actor.user.id,
    tid: tenant.id,
    sid: actor.jti,
    ttlSeconds: app.config.IMPERSONATION_TTL_SECONDS,
    notAfter: actor.exp,
  });
  const record = await db.transaction(async (tx) => {
    await auditEnded(tx, actor, await endAll(tx, actor.user.id), 'replaced');
    const row = await insertImpersonation(tx, {
      superAdminId: actor.user.id,
      impersonatedUserId: target.id,
      tenantId: tenant.id,
      tokenJti: signed.jti,
      expiresAt: new Date(signed.exp * 1000),
      sessionJti: actor.jti,
      sessionExpiresAt: new Date(actor.exp * 1000),
      reason: input.reason ?? null,
    });
    await writeAudit(tx, actor, {
      tenantId: tenant.id,
      action: 'impersonation.start',
      targetType: 'user',
      targetId: target.id,
      details: detailsOf(row, actor.user.email, target.email),
    });
    return row;
  });
  const info = await describeSession(db, target, false, tenant);
  return {
    token: signed.token,
    impersonation: {
      id: record.id,
      impersonated_user: presentUser(target, info.user.tenant_name),
      tenant: presentTenant(tenant),
      reason: record.reason,
      started_at: record.startedAt.toISOString(),
      expires_at: record.expiresAt.toISOString(),
    },
    ...info,
    impersonating: impersonatingOf(actor.user, record.reason),
  };
}

function impersonatingOf(superAdmin: { id: string; name: string; email: string }, reason: string | null) {
  return { isImpersonating: true, impersonator: { id: superAdmin.id, name: superAdmin.name, email: superAdmin.email }, reason };
}

/** The `impersonating` part of GET /auth/me: present only on an impersonation token. */
export async function describeImpersonation(db: Executor, actor: Actor) {
  if (!actor.impersonator) return {};
  return { impersonating: impersonatingOf(actor.impersonator, await findImpersonationReason(db, actor)) };
}

/** The reason given when the caller's impersonation token was issued; null when none was. */
export async function findImpersonationReason(db: Executor, actor: Actor): Promise<string | null> {
  if (!actor.impersonator) return null;
  // The record lives in the impersonated tenant, which need not be the tenant the request names.
  const row = await asSystem(() => findImpersonationByToken(db, actor.jti));
  return row?.reason ?? null;
}

/** The details of an impersonation's audit rows: both people, by id and email, and the reason. */
function detailsOf(row: ImpersonationRow, superAdminEmail: string | null, impersonatedUserEmail: string | null, ended?: ImpersonationEnd) {
  return {
    impersonationId: row.id,
    superAdminId: row.superAdminId,
    superAdminEmail,
    impersonatedUserId: row.impersonatedUserId,
    impersonatedUserEmail,
    reason: row.reason,
    ...(ended ? { ended } : {}),
  };
}

/**
 * Writes the stop audit row of each impersonation that ended, in the impersonated tenant's log, so
 * that its admins see who impersonated whom, why, and when it ended.
 */
export async function auditEnded(tx: Executor, actor: Actor, ended: ImpersonationRow[], how: ImpersonationEnd) {
  if (ended.length === 0) return;
  const emails = await emailsOf(
    tx,
    ended.flatMap((row) => [row.superAdminId, row.impersonatedUserId]),
  );
  for (const row of ended) {
    await writeAudit(tx, actor, {
      tenantId: row.tenantId,
      action: 'impersonation.stop',
      targetType: 'user',
      targetId: row.impersonatedUserId,
      details: detailsOf(row, emails.get(row.superAdminId) ?? null, emails.get(row.impersonatedUserId) ?? null, how),
    });
  }
}

/** Revokes every running impersonation of a super admin; answers those that ended. */
async function endAll(tx: Executor, superAdminId: string): Promise<ImpersonationRow[]> {
  const ended: ImpersonationRow[] = [];
  for (const { impersonation } of await activeImpersonations(tx, superAdminId)) {
    ended.push(...(await revokeToken(tx, impersonation.tokenJti, impersonation.expiresAt)));
  }
  return ended;
}

/**
 * Ends an impersonation and gives the super admin the session they had back. Called with the
 * impersonation token, it revokes that token and answers a token of the session the impersonation
 * was started from: the same id and expiry, so that revoking either token revokes both, and never
 * a new, longer session. Called by a super admin with their own token, it ends every impersonation
 * they left running elsewhere and answers their own session again.
 */
export async function stopImpersonation(app: FastifyInstance, actor: Actor) {
  const db = app.database.db;
  let superAdmin = actor.impersonator;
  let session: { jti?: string; notAfter: number };
  if (superAdmin) {
    const impersonator = superAdmin;
    const ended = await db.transaction(async (tx) => {
      const rows = await revokeToken(tx, actor.jti, new Date(actor.exp * 1000));
      if (rows.length > 0) {
        await auditEnded(tx, actor, rows, 'stopped');
      } else {
        // A token without a running record still ends with a stop row naming both people.
        await writeAudit(tx, actor, {
          tenantId: actor.impersonationTenantId,
          action: 'impersonation.stop',
          targetType: 'user',
          targetId: actor.user.id,
          details: {
            impersonationId: null,
            superAdminId: impersonator.id,
            superAdminEmail: impersonator.email,
            impersonatedUserId: actor.user.id,
            impersonatedUserEmail: actor.user.email,
            reason: null,
            ended: 'stopped',
          },
        });
      }
      return rows[0];
    });
    session =
      ended?.sessionJti && ended.sessionExpiresAt
        ? { jti: ended.sessionJti, notAfter: Math.floor(ended.sessionExpiresAt.getTime() / 1000) }
        : // No record of the session it was started from: nothing to hand back, so the answer lives
          // no longer than the impersonation would have.
          { notAfter: actor.exp };
  } else {
    if (!actor.superAdmin) throw conflict(ADMIN_MESSAGES.notImpersonating);
    superAdmin = actor.user;
    await db.transaction(async (tx) => {
      const ended = await endAll(tx, actor.user.id);
      if (ended.length === 0) throw conflict(ADMIN_MESSAGES.notImpersonating);
      await auditEnded(tx, actor, ended, 'stopped');
    });
    session = { jti: actor.jti, notAfter: actor.exp };
  }
  const own = await loadUserWithTenants(db, superAdmin.id);
  if (!own) throw notFound(ADMIN_MESSAGES.userNotFound);
  const { token } = await app.tokens.sign({ sub: own.id, ttlSeconds: app.config.SESSION_TTL_SECONDS, ...session });
  return { token, ...(await describeSession(db, own, own.superAdmin)) };
}

/**
 * Log Out: revokes the caller's token. Every impersonation the token carries, or that was started
 * from it, ends with it and gets its stop audit row, in the same transaction.
 */
export async function revokeSession(db: Executor, actor: Actor) {
  await db.transaction(async (tx) => {
    const ended = await revokeToken(tx, actor.jti, new Date(actor.exp * 1000));
    await auditEnded(tx, actor, ended, 'signed_out');
  });
}
