import fp from 'fastify-plugin';
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A year, in seconds: how long browsers keep to HTTPS once they have seen the header. */
export const HSTS_MAX_AGE = 365 * 24 * 60 * 60;

/**
 * Security headers with a strict Content-Security-Policy: scripts only from this origin (no inline
 * script); inline style attributes are allowed because the component library sets CSS variables.
 * CORS stays closed: no Access-Control-* headers are ever sent. Strict-Transport-Security is sent
 * when the public address is https:// (TLS ends at a proxy in front of this server); over plain
 * HTTP browsers ignore it. Subdomains are left out: they may be other people's services.
 *
 * The headers are the same for every response, so Helmet computes them once at start-up and each
 * response gets the finished set.
 */
export const securityPlugin = fp(async (app) => {
  const https = app.config.publicUrl.startsWith('https://');
  const headers = securityHeaders(https);
  app.hotReads.setCommonHeaders(headers);
  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(headers);
    done();
  });
});

export function securityHeaders(https: boolean): Record<string, string> {
  const middleware = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: https ? { maxAge: HSTS_MAX_AGE, includeSubDomains: false } : false,
    referrerPolicy: { policy: 'no-referrer' },
  });
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: () => {},
    getHeader: () => undefined,
  };
  let failure: unknown;
  middleware({} as IncomingMessage, response as unknown as ServerResponse, (err?: unknown) => {
    failure = err;
  });
  if (failure) throw failure;
  return headers;
}
