import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { M } from '../../common/messages';
import { SETTINGS_MESSAGES } from '../../common/schemas/settings';
import { documented } from '../routeDoc';
import { assertWritable, changeServiceContent, parseIdParam } from '../commands/serviceWrites';
import { writeAudit } from '../commands/audit';
import type { Executor } from '../db/client';
import { invalid, notFound } from '../errors';
import { scope, serviceOf } from '../plugins/context';
import { bodyOf } from '../validation';

/** The queries a tag list needs: `orderedTagQueries` in db/queries/orderedTags.ts gives them. */
interface TagQueries<Row extends { id: string; serviceId: string }> {
  list(db: Executor, tenantId: string, serviceId: string): Promise<Row[]>;
  find(db: Executor, tenantId: string, id: string): Promise<Row | undefined>;
  insert(db: Executor, tenantId: string, serviceId: string, value: string): Promise<Row>;
  update(db: Executor, tenantId: string, id: string, value: string): Promise<Row>;
  remove(db: Executor, tenantId: string, id: string): Promise<void>;
  reorder(db: Executor, tenantId: string, serviceId: string, ids: string[]): Promise<void>;
}

/**
 * What differs between two ordered lists of a service's short texts (actor roles, quick
 * templates): the URL, the request fields and schemas, the answer's keys and the row's shape.
 */
export interface TagList<Row extends { id: string; serviceId: string }, Text extends string, Ids extends string> {
  /** `/actor-roles`: the list is read at `<path>/service/:id`, written at `<path>` and `<path>/:id`. */
  path: string;
  /** The request field of the text (`roleName`) and of the ids in their new order (`roleIds`). */
  text: Text;
  ids: Ids;
  /** The answer's keys: one row (`role`), every row (`roles`). */
  singular: string;
  plural: string;
  create: z.ZodType<{ serviceId: string } & Record<Text, string>>;
  update: z.ZodType<Record<Text, string>>;
  reorder: z.ZodType<{ serviceId: string } & Record<Ids, string[]>>;
  queries: TagQueries<Row>;
  present: (row: Row) => object;
  /** The reference's tag (`Actor roles`), the row's name in summaries (`actor role`) and the answer row's schema. */
  tag: string;
  noun: string;
  view: z.ZodType;
  /** The audit log's name of the list (`actor_role`: actor_role.create...) and a row's text. */
  audit: 'actor_role' | 'quick_template';
  textOf: (row: Row) => string;
}

/** The routes of one ordered list of a service: editors and up, never on an archived service. */
export function tagListRoutes<Row extends { id: string; serviceId: string }, Text extends string, Ids extends string>(list: TagList<Row, Text, Ids>) {
  const { path, queries: q, present, singular, plural, noun } = list;
  const doc = documented(list.tag);
  const aNoun = `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;
  const one = z.object({ [singular]: list.view });
  const all = z.object({ [plural]: z.array(list.view) });
  const archived = { 409: M.serviceArchivedConflict };

  return async function routes(app: FastifyInstance) {
    const db = () => app.database.db;
    /** The change's audit row, in the change's transaction. */
    const audit = (
      tx: Executor,
      req: FastifyRequest,
      serviceId: string,
      change: 'create' | 'update' | 'delete' | 'reorder',
      details: Record<string, unknown>,
    ) => {
      const { actor, tenantId } = scope(req);
      return writeAudit(tx, actor, { tenantId, action: `${list.audit}.${change}`, targetType: 'service', targetId: serviceId, details });
    };

    /** Loads a row of the request's tenant and checks the caller may change it. */
    async function loadRow(req: FastifyRequest, id: string) {
      const { tenantId } = scope(req);
      const row = await q.find(db(), tenantId, id);
      if (!row) throw notFound();
      const { service } = await serviceOf(req, row.serviceId, 'service.settings');
      assertWritable(service);
      return { row, tenantId };
    }

    app.get(`${path}/service/:id`, doc(`A service's ${noun}s in display order`, 'service.settings', { 200: all }), async (req) => {
      const { service, tenantId } = await serviceOf(req, parseIdParam(req.params), 'service.settings');
      const rows = await q.list(db(), tenantId, service.id);
      return { [plural]: rows.map(present) };
    });

    app.post(path, doc(`Add ${aNoun} to a service, last`, 'service.settings', { 201: one }, { body: list.create, errors: archived }), async (req, reply) => {
      const input = bodyOf(req);
      const { service, tenantId } = await serviceOf(req, input.serviceId, 'service.settings');
      assertWritable(service);
      const row = await changeServiceContent(db(), tenantId, service.id, async (tx) => {
        const created = await q.insert(tx, tenantId, service.id, input[list.text]);
        await audit(tx, req, service.id, 'create', { id: created.id, text: list.textOf(created) });
        return created;
      });
      return reply.status(201).send({ [singular]: present(row) });
    });

    app.put(`${path}/:id`, doc(`Change ${aNoun}'s text`, 'service.settings', { 200: one }, { body: list.update, errors: archived }), async (req) => {
      const id = parseIdParam(req.params);
      const input = bodyOf(req);
      const { row: current, tenantId } = await loadRow(req, id);
      const row = await changeServiceContent(db(), tenantId, current.serviceId, async (tx) => {
        const updated = await q.update(tx, tenantId, current.id, input[list.text]);
        await audit(tx, req, current.serviceId, 'update', { id: current.id, from: list.textOf(current), to: list.textOf(updated) });
        return updated;
      });
      return { [singular]: present(row) };
    });

    app.delete(`${path}/:id`, doc(`Delete ${aNoun}`, 'service.settings', { 204: null }, { errors: archived }), async (req, reply) => {
      const { row, tenantId } = await loadRow(req, parseIdParam(req.params));
      await changeServiceContent(db(), tenantId, row.serviceId, async (tx) => {
        await q.remove(tx, tenantId, row.id);
        await audit(tx, req, row.serviceId, 'delete', { id: row.id, text: list.textOf(row) });
      });
      return reply.status(204).send();
    });

    app.patch(
      `${path}/reorder`,
      doc(
        `Put a service's ${noun}s in a new order, which must name every one of them once; answers them in that order`,
        'service.settings',
        { 200: all },
        {
          body: list.reorder,
          errors: archived,
        },
      ),
      async (req) => {
        const input = bodyOf(req);
        const order = input[list.ids];
        const { service, tenantId } = await serviceOf(req, input.serviceId, 'service.settings');
        assertWritable(service);
        await changeServiceContent(db(), tenantId, service.id, async (tx) => {
          const current = await q.list(tx, tenantId, service.id);
          const ids = new Set(current.map((r) => r.id));
          const given = new Set(order);
          // The new order must name every row of the service exactly once.
          if (given.size !== order.length || given.size !== ids.size || order.some((x) => !ids.has(x))) {
            throw invalid(SETTINGS_MESSAGES.reorderMismatch, list.ids);
          }
          await q.reorder(tx, tenantId, service.id, order);
          await audit(tx, req, service.id, 'reorder', { count: order.length });
        });
        const rows = await q.list(db(), tenantId, service.id);
        return { [plural]: rows.map(present) };
      },
    );
  };
}
