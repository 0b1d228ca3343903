import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Serves the built web app: hashed assets are cached for a year, index.html never, and every
 * non-API GET that matches no file answers index.html so client routes work on reload.
 */
export const spaPlugin = fp<{ root: string }>(async (app, { root }) => {
  if (!existsSync(join(root, 'index.html'))) {
    app.log.warn({ root }, 'web app is not built; only the API is served');
    return;
  }
  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    index: false,
    setHeaders(res, path) {
      if (/[\\/]assets[\\/]/.test(path)) {
        res.header('Cache-Control', 'public, max-age=31536000, immutable');
      } else {
        res.header('Cache-Control', 'no-cache');
      }
    },
  });
  const fallback = (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0];
    if (path === '/api' || path.startsWith('/api/')) {
      return reply.status(404).send({ error: 'Not found', code: 'not_found' });
    }
    if (/\.[a-z0-9]+$/i.test(path)) return reply.status(404).type('text/plain').send('Not found');
    reply.header('Cache-Control', 'no-cache');
    return reply.sendFile('index.html');
  };
  app.get('/', { config: { public: true } }, fallback);
  app.get('/*', { config: { public: true } }, fallback);
});
