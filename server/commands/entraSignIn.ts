import { randomBytes } from 'node:crypto';
import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Role } from '../../common/roles';
import { EMAIL_PATTERN } from '../../common/schemas/fields';
import type { Db, Executor } from '../db';
import { authHandoffs, tenantMemberships, tenants, users } from '../db/schema';
import { findTenantBySlug, findUserByEmail, loadUserWithTenants, type UserRow, type UserWithTenants } from '../db/queries/users';
import { ENTRA_MESSAGES, sameText, sha256, type EntraIdentity } from '../auth/oidc';
import { writeAudit } from './audit';

/** A Microsoft account that may not be signed in; the message is for the person, the reason for the log. */
export class EntraAccountError extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

export interface ProvisionOptions {
  /** ENTRA_DEFAULT_TENANT: slug of the tenant new users join; unset = the first tenant created. */
  defaultTenantSlug?: string;
  /** ENTRA_DEFAULT_ROLE. */
  defaultRole: Role;
  /** True when ENTRA_TENANT_ID pins the token's tid: the UPN (preferred_username) is then administered by that directory. */
  tenantPinned: boolean;
}

export interface ProvisionResult {
  user: UserWithTenants;
  outcome: 'matched' | 'linked' | 'created';
}

/**
 * Finds or creates the user of a verified Microsoft identity. The key is (tid, oid). The first time
 * only, an account created for Microsoft sign-in (no password) is linked through a verified address;
 * an account with a password is never taken over by an email claim. Anyone else is auto-provisioned
 * (user_group entra_auto, auth_provider entra) in the default tenant with the default role.
 */
export async function findOrProvisionEntraUser(db: Db, identity: EntraIdentity, options: ProvisionOptions): Promise<ProvisionResult> {
  const result = await db.transaction(async (tx) => {
    const known = await findByIdentity(tx, identity);
    if (known) return { userId: known.id, outcome: 'matched' as const };

    for (const address of verifiedAddresses(identity, options.tenantPinned)) {
      const existing = await findUserByEmail(tx, address);
      if (!existing) continue;
      refuseTakeover(existing);
      await tx
        .update(users)
        .set({ entraTid: identity.tid, entraOid: identity.oid, authProvider: 'entra' })
        .where(and(eq(users.id, existing.id), isNull(users.entraOid), isNull(users.passwordHash)));
      return { userId: existing.id, outcome: 'linked' as const };
    }

    const email = [identity.email, identity.preferredUsername].find((a): a is string => !!a && EMAIL_PATTERN.test(a));
    if (!email) throw new EntraAccountError(ENTRA_MESSAGES.missingEmail, 'no email or preferred_username claim');
    const clash = await findUserByEmail(tx, email);
    if (clash) {
      refuseTakeover(clash);
      throw new EntraAccountError(ENTRA_MESSAGES.unverifiedEmail, 'email not verified for an existing account');
    }

    const tenant = await defaultTenant(tx, options.defaultTenantSlug);
    if (!tenant) throw new EntraAccountError(ENTRA_MESSAGES.noDefaultTenant, `default tenant ${options.defaultTenantSlug ?? '(first)'} not found`);
    const [created] = await tx
      .insert(users)
      .values({
        email,
        name: identity.name || email,
        legacyRole: options.defaultRole,
        tenantId: tenant.id,
        userGroup: 'entra_auto',
        authProvider: 'entra',
        passwordHash: null,
        entraTid: identity.tid,
        entraOid: identity.oid,
      })
      .onConflictDoNothing()
      .returning();
    if (!created) {
      // A concurrent first sign-in of the same identity created it a moment ago.
      const raced = await findByIdentity(tx, identity);
      if (raced) return { userId: raced.id, outcome: 'matched' as const };
      throw new EntraAccountError(ENTRA_MESSAGES.failed, 'user insert conflicted');
    }
    await tx.insert(tenantMemberships).values({ userId: created.id, tenantId: tenant.id, role: options.defaultRole }).onConflictDoNothing();
    await writeAudit(tx, null, {
      tenantId: tenant.id,
      action: 'user.create',
      targetType: 'user',
      targetId: created.id,
      actorId: created.id,
      actorEmail: created.email,
      details: { user_group: 'entra_auto', auth_provider: 'entra', role: options.defaultRole },
    });
    return { userId: created.id, outcome: 'created' as const };
  });
  const user = await loadUserWithTenants(db, result.userId);
  if (!user) throw new EntraAccountError(ENTRA_MESSAGES.failed, 'user vanished');
  return { user, outcome: result.outcome };
}

async function findByIdentity(db: Executor, identity: EntraIdentity): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.entraTid, identity.tid), eq(users.entraOid, identity.oid)))
    .limit(1);
  return row;
}

/**
 * Addresses that prove who the person is: an email claim with email_verified (or Entra's xms_edov),
 * and, when the token's tenant is pinned by configuration, the UPN in preferred_username.
 */
function verifiedAddresses(identity: EntraIdentity, tenantPinned: boolean): string[] {
  const out = new Set<string>();
  if (identity.email && identity.emailVerified) out.add(identity.email);
  if (tenantPinned && identity.preferredUsername && EMAIL_PATTERN.test(identity.preferredUsername)) out.add(identity.preferredUsername);
  return [...out];
}

function refuseTakeover(existing: UserRow): void {
  if (existing.passwordHash) throw new EntraAccountError(ENTRA_MESSAGES.localAccount, 'email matches an account with a password');
  if (existing.entraOid) throw new EntraAccountError(ENTRA_MESSAGES.linkedElsewhere, 'email matches an account linked to another identity');
}

async function defaultTenant(db: Executor, slug: string | undefined) {
  if (slug) return findTenantBySlug(db, slug);
  const [first] = await db.select().from(tenants).orderBy(asc(tenants.createdAt), asc(tenants.id)).limit(1);
  return first;
}

/** A hand-off code lives 60 seconds and is used once (CONTRACT section 5). */
export const HANDOFF_TTL_MS = 60_000;
/** Tries from another browser before the code is given up. */
const MAX_HANDOFF_ATTEMPTS = 5;

/** Stores a one-time hand-off code (only its hash) bound to the browser; answers the code. */
export async function createHandoff(db: Executor, userId: string, browserHash: string): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  await db.delete(authHandoffs).where(lt(authHandoffs.expiresAt, new Date(Date.now() - 60 * 60_000)));
  await db.insert(authHandoffs).values({ codeHash: sha256(code), userId, browserHash, expiresAt: new Date(Date.now() + HANDOFF_TTL_MS) });
  return code;
}

export type RedeemResult = { ok: true; userId: string } | { ok: false; reason: 'invalid' | 'browser' };

/** Uses a hand-off code: known, unused, unexpired and presented by the browser it was issued to. */
export async function redeemHandoff(db: Executor, code: string, browserHash: string | null): Promise<RedeemResult> {
  const codeHash = sha256(code);
  const [row] = await db.select().from(authHandoffs).where(eq(authHandoffs.codeHash, codeHash)).limit(1);
  if (!row || row.usedAt || row.expiresAt.getTime() <= Date.now() || row.attempts >= MAX_HANDOFF_ATTEMPTS) return { ok: false, reason: 'invalid' };
  if (!browserHash || !sameText(row.browserHash, browserHash)) {
    await db
      .update(authHandoffs)
      .set({ attempts: sql`${authHandoffs.attempts} + 1` })
      .where(eq(authHandoffs.codeHash, codeHash));
    return { ok: false, reason: 'browser' };
  }
  const [claimed] = await db
    .update(authHandoffs)
    .set({ usedAt: new Date() })
    .where(and(eq(authHandoffs.codeHash, codeHash), isNull(authHandoffs.usedAt)))
    .returning({ userId: authHandoffs.userId });
  return claimed ? { ok: true, userId: claimed.userId } : { ok: false, reason: 'invalid' };
}
