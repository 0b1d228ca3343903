import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../db';
import { actorRoles, apiTokens, auditLog, quickTemplates, snapshots, tenantInvitations, webhookDeliveries, webhookEndpoints } from '../../db/schema';
import { assignServiceRole, createApiToken, createAspect, createCategory, createService, createTenant, createUser, setAvailability } from '../factories';
import { quarterOf } from '../../../common/quarters';
import { call } from '../app';
import { ROLES, type Role } from '../../../common/roles';

const unique = () => randomBytes(4).toString('hex');

/** One tenant's records, by the entity names the matrix maps path parameters to. */
export interface Dataset {
  tenantId: string;
  tenantSlug: string;
  service: { id: string; slug: string };
  archivedService: { id: string };
  category: { id: string };
  aspect: { id: string };
  privateAspect: { id: string };
  snapshot: { id: string };
  actorRole: { id: string };
  quickTemplate: { id: string };
  /** A user assigned editor on `service`, and the assignment. */
  assignee: { id: string; email: string };
  assignment: { id: string };
  /** A reader of the tenant with no assignment: the one user routes act on. */
  user: { id: string; email: string };
  /** The tenant a /tenants/:id route acts on. */
  tenant: { id: string };
  /** An invitation into the tenant for an account of yet another tenant: none of the matrix's actors. */
  invitation: { id: string };
  apiToken: { id: string };
  webhook: { id: string };
  /** A delivery of `webhook`. */
  delivery: { id: string };
  /** An audit entry of a cell write of `service`, whose cells GET /audit/{id}/cells answers. */
  auditEntry: { id: string };
}

/** A full dataset in a tenant: active and archived services, categories, public and private aspects, and the rest. */
export async function seedDataset(db: Executor, tenantId: string, tenantSlug: string, tenantTarget?: string): Promise<Dataset> {
  const service = await createService(db, tenantId);
  const archivedService = await createService(db, tenantId, { archived: true });
  const category = await createCategory(db, tenantId, service.id, `Category ${unique()}`);
  const aspect = await createAspect(db, tenantId, service.id, category.id, { isPublic: true });
  const privateAspect = await createAspect(db, tenantId, service.id, category.id, { isPublic: false, position: 1 });
  await setAvailability(db, tenantId, service.id, aspect.id, quarterOf(new Date()), 'Available');
  const [snapshot] = await db
    .insert(snapshots)
    .values({ tenantId, serviceId: service.id, label: 'Baseline', visibility: 'public', data: { aspects: [] }, createdBy: 'seed' })
    .returning();
  const [actorRole] = await db.insert(actorRoles).values({ tenantId, serviceId: service.id, roleName: 'Operator' }).returning();
  const [quickTemplate] = await db.insert(quickTemplates).values({ tenantId, serviceId: service.id, templateText: 'Planned' }).returning();
  const assignee = await createUser(db, tenantId, { role: 'reader' });
  const assignment = await assignServiceRole(db, tenantId, service.id, assignee.id, 'editor');
  const user = await createUser(db, tenantId, { role: 'reader' });
  const outsider = await createUser(db, (await createTenant(db)).id, { role: 'editor' });
  const [invitation] = await db
    .insert(tenantInvitations)
    .values({ tenantId, userId: outsider.id, name: 'Invited', role: 'reader', authProvider: 'local', serviceId: service.id, invitedBy: user.id })
    .returning();
  const [apiToken] = await db
    .insert(apiTokens)
    .values({ tenantId, name: 'Seeded token', role: 'reader', secretHash: randomBytes(32).toString('hex'), hint: 'scat_seed…' })
    .returning();
  const [webhook] = await db
    .insert(webhookEndpoints)
    .values({ tenantId, url: 'https://127.0.0.1/seed', events: ['snapshot.taken'], secret: 'whsec_c2VlZA==' })
    .returning();
  const [delivery] = await db
    .insert(webhookDeliveries)
    .values({ tenantId, endpointId: webhook!.id, eventId: 'msg_seed', eventType: 'snapshot.taken', data: { service_id: service.id }, status: 'succeeded' })
    .returning();
  const [auditEntry] = await db
    .insert(auditLog)
    .values({
      tenantId,
      actorId: user.id,
      actorEmail: user.email,
      serviceId: service.id,
      requestId: randomUUID(),
      action: 'availability.set',
      targetType: 'service',
      targetId: service.id,
    })
    .returning();
  return {
    auditEntry: { id: String(auditEntry!.id) },
    apiToken: { id: apiToken!.id },
    webhook: { id: webhook!.id },
    delivery: { id: delivery!.id },
    tenantId,
    tenantSlug,
    service,
    archivedService,
    category,
    aspect,
    privateAspect,
    snapshot,
    actorRole,
    quickTemplate,
    assignee,
    assignment,
    user,
    tenant: { id: tenantTarget ?? tenantId },
    invitation: { id: invitation.id },
  };
}

const NONE = '00000000-0000-4000-8000-00000000';
/** Ids that name nothing, in the shape of a dataset. */
export function missingDataset(): Dataset {
  const id = (n: number) => ({ id: `${NONE}${String(n).padStart(4, '0')}` });
  return {
    tenantId: id(1).id,
    tenantSlug: 'no-such-tenant',
    service: { ...id(2), slug: 'no-such-service' },
    archivedService: id(3),
    category: id(4),
    aspect: id(5),
    privateAspect: id(6),
    snapshot: id(7),
    actorRole: id(8),
    quickTemplate: id(9),
    assignee: { ...id(10), email: 'nobody-assigned@example.com' },
    assignment: id(11),
    user: { ...id(12), email: 'nobody@example.com' },
    tenant: id(13),
    invitation: id(14),
    apiToken: id(15),
    webhook: id(16),
    delivery: id(17),
    auditEntry: { id: '999999999999' },
  };
}

export type ActorName =
  | 'signedOut'
  | 'reader'
  | 'editor'
  | 'admin'
  | 'adminOfB'
  | 'superAdmin'
  | 'impersonation'
  | 'readerAsEditor'
  | 'readerAsAdmin'
  | 'editorAsAdmin'
  | 'invitedReader'
  | TokenActorName;
/** API tokens of A of every role, for every service or limited to A's service. */
export type TokenActorName = `${Role}Token` | `${Role}TokenLimited`;
export const TOKEN_ACTORS: TokenActorName[] = ROLES.flatMap((role) => [`${role}Token` as const, `${role}TokenLimited` as const]);
export const ACTORS: ActorName[] = [
  'signedOut',
  'reader',
  'editor',
  'admin',
  'adminOfB',
  'superAdmin',
  'impersonation',
  'readerAsEditor',
  'readerAsAdmin',
  'editorAsAdmin',
  'invitedReader',
  ...TOKEN_ACTORS,
];

/** An actor of the matrix. `assigned`: their service role assignment on their home dataset's service. */
export interface MatrixActor {
  token: string | null;
  home: 'A' | 'B';
  role: Role;
  superAdmin: boolean;
  userId: string | null;
  assigned?: Role;
  /** An API token (its row's id is `userId`); limited: to its home dataset's service only. */
  apiToken?: { limited: boolean };
  /**
   * The tenant headers it is probed with, when not all of them: a person invited into A from a
   * tenant of their own works there with another role, which the other actors' cells do not model.
   */
  headers?: ('own' | 'other' | 'missing' | 'unknown')[];
}

export interface IsolationWorld {
  A: Dataset;
  B: Dataset;
  tenantA: { id: string; slug: string };
  tenantB: { id: string; slug: string };
  actors: Record<ActorName, MatrixActor>;
}

/** Two tenants with full datasets and users of every role, plus the actors of the matrix. */
export async function buildIsolationWorld(app: FastifyInstance, db: Executor): Promise<IsolationWorld> {
  const ta = await createTenant(db);
  const tb = await createTenant(db);
  const A = await seedDataset(db, ta.id, ta.slug);
  const B = await seedDataset(db, tb.id, tb.slug);
  const reader = await createUser(db, ta.id, { role: 'reader' });
  const editor = await createUser(db, ta.id, { role: 'editor' });
  const admin = await createUser(db, ta.id, { role: 'admin' });
  const adminOfB = await createUser(db, tb.id, { role: 'admin' });
  const superAdmin = await createUser(db, ta.id, { role: 'admin', superAdmin: true });
  // Rights raised by a service role assignment on A's service, and on nothing else.
  const raised = async (role: Role, assigned: Role): Promise<MatrixActor> => {
    const user = await createUser(db, ta.id, { role });
    await assignServiceRole(db, ta.id, A.service.id, user.id, assigned);
    return { token: await sign(user.id), home: 'A', role, superAdmin: false, userId: user.id, assigned };
  };
  // Users of every role in B as well, so that lists in B hold more than the actors' tenant.
  await createUser(db, tb.id, { role: 'reader' });
  await createUser(db, tb.id, { role: 'editor' });
  const sign = async (sub: string) => (await app.tokens.sign({ sub, ttlSeconds: 3600 })).token;
  const superSession = await app.tokens.sign({ sub: superAdmin.id, ttlSeconds: 3600 });
  const imp = await app.tokens.sign({ sub: reader.id, imp: superAdmin.id, tid: ta.id, sid: superSession.jti, ttlSeconds: 3600 });
  const tokens = {} as Record<TokenActorName, MatrixActor>;
  for (const name of TOKEN_ACTORS) tokens[name] = await tokenActor(db, name, ta.id, A.service.id);
  // An admin of a tenant of their own, invited into A as reader by A's admin, who accepted (roles are held per membership).
  const invited = await createUser(db, (await createTenant(db)).id, { role: 'admin' });
  const adminToken = await sign(admin.id);
  const added = await call(app, 'POST', '/api/users', { token: adminToken, tenant: ta.slug, body: { email: invited.email, name: 'Invited', role: 'reader' } });
  const invitedToken = await sign(invited.id);
  const [invitation] = (await call(app, 'GET', '/api/auth/me', { token: invitedToken })).json().invitations as { id: string }[];
  const accepted = await call(app, 'POST', `/api/invitations/${invitation?.id}/accept`, { token: invitedToken });
  if (added.statusCode !== 201 || accepted.statusCode !== 200) throw new Error(`the invited actor could not join A: ${added.body} ${accepted.body}`);
  return {
    A,
    B,
    tenantA: { id: ta.id, slug: ta.slug },
    tenantB: { id: tb.id, slug: tb.slug },
    actors: {
      signedOut: { token: null, home: 'A', role: 'reader', superAdmin: false, userId: null },
      reader: { token: await sign(reader.id), home: 'A', role: 'reader', superAdmin: false, userId: reader.id },
      editor: { token: await sign(editor.id), home: 'A', role: 'editor', superAdmin: false, userId: editor.id },
      admin: { token: await sign(admin.id), home: 'A', role: 'admin', superAdmin: false, userId: admin.id },
      adminOfB: { token: await sign(adminOfB.id), home: 'B', role: 'admin', superAdmin: false, userId: adminOfB.id },
      superAdmin: { token: await sign(superAdmin.id), home: 'A', role: 'admin', superAdmin: true, userId: superAdmin.id },
      impersonation: { token: imp.token, home: 'A', role: 'reader', superAdmin: false, userId: reader.id },
      readerAsEditor: await raised('reader', 'editor'),
      readerAsAdmin: await raised('reader', 'admin'),
      editorAsAdmin: await raised('editor', 'admin'),
      invitedReader: { token: invitedToken, home: 'A', role: 'reader', superAdmin: false, userId: invited.id, headers: ['own'] },
      ...tokens,
    },
  };
}

/** An API token of the tenant with the actor's role, limited to the service when its name says so. */
export async function tokenActor(db: Executor, name: TokenActorName, tenantId: string, serviceId: string): Promise<MatrixActor> {
  const limited = name.endsWith('Limited');
  const role = name.replace(/TokenLimited$|Token$/, '') as Role;
  const token = await createApiToken(db, tenantId, { role, name, serviceIds: limited ? [serviceId] : null });
  return { token: token.secret, home: 'A', role, superAdmin: false, userId: token.id, apiToken: { limited } };
}

/**
 * A cheap fingerprint of the whole database: per table its row count and a hash of its rows, so
 * that any insert, update or delete shows. One query.
 */
export async function fingerprinter(db: Executor): Promise<() => Promise<Record<string, string>>> {
  const rows = (await db.execute(
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  )) as unknown as { rows: { table_name: string }[] };
  const names = rows.rows.map((r) => r.table_name);
  const query = names
    // An API token's last use is recorded on any call, refused or not: it is left out.
    .map((n) => {
      const row = n === 'api_tokens' ? `(to_jsonb(x) - 'last_used_at')::text` : 'x::text';
      return `select '${n}' as t, count(*)::text || ':' || coalesce(md5(string_agg(${row}, '|' order by ${row})), '') as f from "${n}" x`;
    })
    .join(' union all ');
  return async () => {
    const res = (await db.execute(sql.raw(query))) as unknown as { rows: { t: string; f: string }[] };
    return Object.fromEntries(res.rows.map((r) => [r.t, r.f]));
  };
}
