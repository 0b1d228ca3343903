import type { FastifyInstance, FastifyRequest } from 'fastify';
import { resolveCaller } from '../../plugins/session';
import { resolveTenant } from '../../plugins/tenant';
import { scope } from '../../plugins/context';
import { asSystem } from '../../db/scope';
import { LiveHub } from './hub';
import { requireWholeTenant } from '../../policies';
import { z } from 'zod';
import { documented } from '../../routeDoc';
import { tooManyRequests } from '../../errors';
import { M } from '../../../common/messages';
import { MAX_EVENT_STREAMS } from '../../../common/limits';

/** When a caller refused an 11th stream may try again. */
const STREAM_RETRY_AFTER_S = 30;

/** One live update (hub.ts `LiveEvent`): which kind of record changed and the ids concerned, never content. */
const liveEventSchema = z.discriminatedUnion('type', [
  z.object({
    id: z.string(),
    type: z.literal('catalog'),
    record: z.string().describe('service, category, aspect, availability, snapshot, actorRole or quickTemplate'),
    services: z.array(z.string()).nullable().describe('The services concerned; null: any of the tenant'),
  }),
  z.object({
    id: z.string(),
    type: z.literal('access'),
    record: z.string().describe('tenant, user, membership, assignment, invitation, session or impersonation'),
    users: z.array(z.string()).nullable().describe('The users concerned; null: any'),
  }),
  z.object({ id: z.string(), type: z.literal('resync').describe('What changed is unknown: read everything again') }),
]);

/** The polling answer (hub.ts `since`). */
const eventsSinceSchema = z.object({
  events: z.array(liveEventSchema).describe('Oldest first; none without lastEventId'),
  last_event_id: z.string().describe('The id to ask from next'),
});

const eventsQuery = z.object({
  lastEventId: z.string().optional().describe('The id of the last event heard (a stream sends the Last-Event-ID header instead)'),
});

/** Last-Event-ID: the header a reconnecting browser sends, or the `lastEventId` query of a polling caller. */
function lastEventId(req: FastifyRequest): string | undefined {
  const header = req.headers['last-event-id'];
  if (typeof header === 'string' && header) return header.slice(0, 100);
  const query = (req.query as Record<string, unknown> | undefined)?.lastEventId;
  return typeof query === 'string' && query ? query.slice(0, 100) : undefined;
}

/**
 * GET /api/events: the live updates of the tenant a caller works in, as Server-Sent Events
 * (docs/decisions/0115-change-stream.md). Any signed-in member may follow their tenant; events name
 * the kind of record and the ids concerned, and the page reads again what it shows with its own
 * rights. A caller whose access ends is told (`ended`) and the stream closes: a session logged out
 * or expired, an API token revoked or expired, a membership or the tenant gone. One person or one
 * API token holds at most MAX_EVENT_STREAMS open streams in a process (decision 0164).
 *
 * A caller that does not accept `text/event-stream` gets, at once and as JSON, the events this
 * process still holds after its `Last-Event-ID` (none without one), with the id to ask from next.
 */
export default async function eventRoutes(app: FastifyInstance) {
  const hub = new LiveHub(app.database.changes);
  app.decorate('liveHub', hub);
  // Streams end before the server stops accepting: browsers reconnect, to another process if this one is going.
  app.addHook('preClose', async () => hub.closeAll());

  app.get(
    '/events',
    documented('Live updates')(
      "The tenant's live updates: a Server-Sent Events stream for a caller that accepts text/event-stream, else at once as JSON the events after lastEventId",
      'member (not a token limited to some services)',
      {
        200: {
          description:
            "With Accept: text/event-stream, a stream of events (`id`, `event` is the type, `data` the event as JSON) that resumes after the Last-Event-ID header and ends when the caller's access does; otherwise the events as JSON",
          content: { 'application/json': eventsSinceSchema, 'text/event-stream': null },
        },
      },
      { query: eventsQuery, errors: { 429: `${M.tooManyEventStreams} (more than ${MAX_EVENT_STREAMS} open streams); retry after the Retry-After header` } },
    ),
    async (req, reply) => {
      const { actor, tenantId } = scope(req);
      // The feed names every service of the tenant.
      requireWholeTenant(actor);
      const wantsStream = (req.headers.accept ?? '').includes('text/event-stream');
      if (!wantsStream) return hub.since(actor, tenantId, lastEventId(req));
      if (!hub.hasRoomFor(actor)) {
        reply.header('Retry-After', String(STREAM_RETRY_AFTER_S));
        throw tooManyRequests(M.tooManyEventStreams);
      }

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // nginx would otherwise hold the events back in its buffer.
        'x-accel-buffering': 'no',
        'x-request-id': req.id,
      });
      res.flushHeaders();
      hub.add(
        {
          req,
          res,
          actor,
          tenantId,
          // Heard from the change stream, outside any request: the session or API token is read across
          // tenants, as the session plugin reads it.
          recheck: () =>
            asSystem(async () => {
              const current = await resolveCaller(req);
              await resolveTenant(req, current);
              return true;
            }),
        },
        lastEventId(req),
      );
    },
  );
}

declare module 'fastify' {
  interface FastifyInstance {
    liveHub: LiveHub;
  }
}
