import fp from 'fastify-plugin';
import type { FastifyError } from 'fastify';
import { AppError, unavailable } from '../errors';

/**
 * One error handler: AppErrors become {error, code, field?}; Fastify's own client errors (bad
 * JSON, wrong content type, body too large) keep their status with a readable message; anything
 * else is a 500 logged with the request id and answered without details, except text holding a
 * character the database cannot store (a null character), which is a 400, and a lost database
 * connection, which is a 503 the caller may retry: the pool reconnects by itself once the database
 * answers again.
 */
export const errorsPlugin = fp(async (app) => {
  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (err instanceof AppError) {
      const body: Record<string, unknown> = { error: err.message, code: err.code, ...(err.extra ?? {}) };
      if (err.field) body.field = err.field;
      if (err.statusCode >= 500) req.log.error({ err }, 'request failed');
      return reply.status(err.statusCode).send(body);
    }
    const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ error: clientMessage(err, status), code: err.code ?? 'bad_request' });
    }
    if (isUnstorableText(err)) {
      return reply.status(400).send({ error: NULL_CHARACTER_MESSAGE, code: 'validation' });
    }
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ err }, 'database unavailable');
      const e = unavailable();
      return reply.status(e.statusCode).header('Retry-After', '2').send({ error: e.message, code: e.code });
    }
    req.log.error({ err }, 'unexpected error');
    return reply.status(500).send({ error: 'Something went wrong on our side. Please try again.', code: 'internal' });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ error: 'Not found', code: 'not_found' });
  });
});

function clientMessage(err: FastifyError, status: number): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is not valid JSON';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type; send JSON';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Invalid Content-Length header';
    default:
      if (status === 413) return 'The request body is too large';
      if (status === 429) return err.message;
      return err.message && !/^FST_/.test(err.message) ? err.message : 'Invalid request';
  }
}

export const NULL_CHARACTER_MESSAGE = 'Text cannot contain null characters';
/** character_not_in_repertoire, untranslatable_character: a null character the database cannot store. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/** True when the database refused a value because of a character it cannot store; nothing was written. */
function isUnstorableText(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNSTORABLE_TEXT.has(code)) return true;
  }
  return false;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** admin_shutdown, crash_shutdown, cannot_connect_now. */
const SHUTDOWN_STATES = new Set(['57P01', '57P02', '57P03']);
const CONNECTION_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /Connection ended unexpectedly/i,
  /the database system is (starting up|shutting down)/i,
];

/**
 * True when an error (or what caused it: Drizzle wraps driver errors) says the database cannot be
 * reached: a refused, reset or timed-out connection, a server shutting down, SQLSTATE class 08.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== 'object') return false;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (CONNECTION_CODES.has(code) || SHUTDOWN_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    if (typeof message === 'string' && CONNECTION_MESSAGES.some((re) => re.test(message))) return true;
    const nested = (e as { errors?: unknown }).errors;
    if (Array.isArray(nested) && nested.some((n) => isDatabaseUnavailable(n))) return true;
  }
  return false;
}
