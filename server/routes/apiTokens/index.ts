import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  adminApiTokenViewSchema,
  apiTokenViewSchema,
  createApiTokenSchema,
  INTEGRATION_MESSAGES,
  MAX_ACTIVE_API_TOKENS,
} from '../../../common/schemas/integrations';
import { API_TOKEN_LIST_CAP, apiTokenPageQuerySchema, encodeCursor, isPaged, USER_PAGE_DEFAULT, USER_PAGE_MAX } from '../../../common/schemas/paging';
import type { RouteDoc } from '../../routeDoc';
import { idParamSchema } from '../../../common/schemas/users';
import { newApiTokenSecret } from '../../auth/apiTokens';
import { writeAudit } from '../../commands/audit';
import {
  countActiveApiTokens,
  countTenantServices,
  findTenantApiToken,
  insertApiToken,
  listAllApiTokens,
  listApiTokens,
  reissueApiToken,
  revokeApiToken,
} from '../../db/queries/integrations';
import { conflict, invalid, notFound } from '../../errors';
import { requireActor, scope } from '../../plugins/context';
import { requireActingAsSelf, requireIntegrationManager, requirePlatform } from '../../policies';
import { presentAdminApiToken, presentApiToken } from '../../presenters/integrations';
import { bodyOf, queryOf } from '../../validation';

const M = INTEGRATION_MESSAGES;

function tokenIdOf(req: FastifyRequest): string {
  const parsed = idParamSchema.safeParse(req.params);
  if (!parsed.success) throw notFound(M.tokenNotFound);
  return parsed.data.id;
}

/**
 * API tokens (docs/decisions/0130-api-tokens.md): a tenant's admins create, list and revoke them;
 * super admins see and revoke every tenant's. The secret is answered once, at creation.
 */
export default async function apiTokenRoutes(app: FastifyInstance) {
  const db = () => app.database.db;

  const tags = ['API tokens'];
  const capability = 'tenant.users (a person, never an API token)';
  const token = z.object({ token: apiTokenViewSchema });
  const tokens = z.object({ tokens: z.array(apiTokenViewSchema) });

  const create = {
    summary: 'Create an API token; its secret is answered here only',
    capability,
    tags,
    body: createApiTokenSchema,
    responses: { 201: token.extend({ secret: z.string().startsWith('scat_') }) },
    errors: { 409: `The tenant has ${MAX_ACTIVE_API_TOKENS} tokens in use, the most it can have` },
  } satisfies RouteDoc;
  app.post('/api-tokens', { config: { doc: create } }, async (req, reply) => {
    const { actor, tenantId } = scope(req);
    requireIntegrationManager(actor);
    requireActingAsSelf(actor);
    const input = bodyOf(req);
    const serviceIds = input.serviceIds && input.serviceIds.length > 0 ? input.serviceIds : null;
    if (serviceIds && (await countTenantServices(db(), tenantId, serviceIds)) !== serviceIds.length) throw invalid(M.tokenServiceUnknown, 'serviceIds');
    const { secret, hash, hint } = newApiTokenSecret();
    const token = await db().transaction(async (tx) => {
      if ((await countActiveApiTokens(tx, tenantId, MAX_ACTIVE_API_TOKENS)) >= MAX_ACTIVE_API_TOKENS) throw conflict(M.tokenLimitReached);
      const row = await insertApiToken(tx, {
        tenantId,
        name: input.name,
        role: input.role,
        serviceIds,
        secretHash: hash,
        hint,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
        createdBy: actor.user.id,
      });
      await writeAudit(tx, actor, {
        tenantId,
        action: 'api_token.create',
        targetType: 'api_token',
        targetId: row.id,
        details: { name: row.name, role: row.role, serviceIds },
      });
      return row;
    });
    // Made by the caller, who holds its role: it works.
    return reply.status(201).send({ token: presentApiToken({ ...token, creator: { exists: true, superAdmin: actor.superAdmin, role: actor.role } }), secret });
  });

  app.get(
    '/api-tokens',
    { config: { doc: { summary: "The tenant's API tokens (never their secrets)", capability, tags, responses: { 200: tokens } } } },
    async (req) => {
      const { actor, tenantId } = scope(req);
      requireIntegrationManager(actor);
      return { tokens: (await listApiTokens(db(), tenantId)).map(presentApiToken) };
    },
  );

  const reissue: RouteDoc = {
    summary: "Re-issue a token under the caller's name with a new secret (answered here only); the old secret stops working",
    capability,
    tags,
    responses: { 200: token.extend({ secret: z.string().startsWith('scat_') }) },
  };
  app.post('/api-tokens/:id/reissue', { config: { doc: reissue } }, async (req) => {
    const { actor, tenantId } = scope(req);
    requireIntegrationManager(actor);
    const id = tokenIdOf(req);
    const { secret, hash, hint } = newApiTokenSecret();
    const row = await db().transaction(async (tx) => {
      const before = await findTenantApiToken(tx, tenantId, id);
      if (!before) throw notFound(M.tokenNotFound);
      const after = (await reissueApiToken(tx, tenantId, id, { hash, hint }, actor.user.id))!;
      await writeAudit(tx, actor, {
        tenantId,
        action: 'api_token.reissue',
        targetType: 'api_token',
        targetId: id,
        details: { name: after.name, role: after.role, previousCreatorId: before.createdBy },
      });
      return (await findTenantApiToken(tx, tenantId, id))!;
    });
    return { token: presentApiToken(row), secret };
  });

  app.delete(
    '/api-tokens/:id',
    { config: { doc: { summary: 'Revoke an API token, at once in every server process', capability, tags, responses: { 204: null } } } },
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      requireIntegrationManager(actor);
      const id = tokenIdOf(req);
      await db().transaction(async (tx) => {
        const row = await revokeApiToken(tx, tenantId, id);
        if (!row) throw notFound(M.tokenNotFound);
        await writeAudit(tx, actor, { tenantId, action: 'api_token.revoke', targetType: 'api_token', targetId: id, details: { name: row.name } });
      });
      return reply.status(204).send();
    },
  );

  // The Super Admin Panel: every tenant's tokens, across tenants.
  const cross = <D extends RouteDoc>(doc: D) => ({ config: { tenant: false as const, doc } });

  const adminTokens = z.object({ tokens: z.array(adminApiTokenViewSchema), next_after: z.string().nullable().optional() });
  app.get(
    '/admin/api-tokens',
    cross({
      summary: "Every tenant's API tokens, newest first (super admin)",
      description:
        "Paged as the other lists (docs/decisions/0114-paged-lists.md): `search` (the token's or the tenant's name), `limit` " +
        `(default ${USER_PAGE_DEFAULT}, at most ${USER_PAGE_MAX}) or \`after\` answer one page and \`next_after\` (null on the last); ` +
        `without them, the newest ${API_TOKEN_LIST_CAP}. Revoked tokens only with \`includeRevoked=true\`.`,
      capability: 'platform.manage',
      tags,
      query: apiTokenPageQuerySchema,
      responses: { 200: adminTokens },
    }),
    async (req) => {
      requirePlatform(requireActor(req));
      const query = queryOf(req);
      if (!isPaged(query))
        return { tokens: (await listAllApiTokens(db(), { includeRevoked: query.includeRevoked, limit: API_TOKEN_LIST_CAP })).map(presentAdminApiToken) };
      // One row more than asked tells whether a next page exists.
      const limit = query.limit ?? USER_PAGE_DEFAULT;
      const rows = await listAllApiTokens(db(), { ...query, limit: limit + 1 });
      const shown = rows.slice(0, limit);
      const last = shown.at(-1);
      return { tokens: shown.map(presentAdminApiToken), next_after: rows.length > limit && last ? encodeCursor([last.createdKey, last.id]) : null };
    },
  );

  app.delete(
    '/admin/api-tokens/:id',
    cross({ summary: "Revoke any tenant's API token (super admin)", capability: 'platform.manage', tags, responses: { 204: null } }),
    async (req, reply) => {
      const actor = requireActor(req);
      requirePlatform(actor);
      const id = tokenIdOf(req);
      await db().transaction(async (tx) => {
        const row = await revokeApiToken(tx, null, id);
        if (!row) throw notFound(M.tokenNotFound);
        await writeAudit(tx, actor, { tenantId: row.tenantId, action: 'api_token.revoke', targetType: 'api_token', targetId: id, details: { name: row.name } });
      });
      return reply.status(204).send();
    },
  );
}
