import type { FastifyInstance, FastifyRequest } from 'fastify';
import { resolveActor } from '../../plugins/session';
import { resolveTenant } from '../../plugins/tenant';
import { scope } from '../../plugins/context';
import { asSystem } from '../../db/scope';
import { LiveHub } from './hub';
import { requireWholeTenant } from '../../policies';

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
 * rights. A caller whose access ends is told (`ended`) and the stream closes.
 *
 * A caller that does not accept `text/event-stream` gets, at once and as JSON, the events this
 * process still holds after its `Last-Event-ID` (none without one), with the id to ask from next.
 */
export default async function eventRoutes(app: FastifyInstance) {
  const hub = new LiveHub(app.database.changes);
  app.decorate('liveHub', hub);
  // Streams end before the server stops accepting: browsers reconnect, to another process if this one is going.
  app.addHook('preClose', async () => hub.closeAll());

  app.get('/events', async (req, reply) => {
    const { actor, tenantId } = scope(req);
    // The feed names every service of the tenant.
    requireWholeTenant(actor);
    const wantsStream = (req.headers.accept ?? '').includes('text/event-stream');
    if (!wantsStream) return hub.since(actor, tenantId, lastEventId(req));

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
        // Heard from the change stream, outside any request: the session is read across tenants,
        // as the session plugin reads it.
        recheck: () =>
          asSystem(async () => {
            const current = await resolveActor(req);
            await resolveTenant(req, current);
            return true;
          }),
      },
      lastEventId(req),
    );
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    liveHub: LiveHub;
  }
}
