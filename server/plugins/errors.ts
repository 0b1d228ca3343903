import fp from 'fastify-plugin';
import type { FastifyError } from 'fastify';
import { AppError } from '../errors';

/**
 * One error handler: AppErrors become {error, code, field?}; Fastify's own client errors (bad
 * JSON, wrong content type, body too large) keep their status with a readable message; anything
 * else is a 500 logged with the request id and answered without details.
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
