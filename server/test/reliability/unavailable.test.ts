import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { errorsPlugin, isDatabaseUnavailable } from '../../plugins/errors';

/** Which errors mean "the database cannot be reached" (503, retry) and which stay a 500. */
const driverError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
/** Drizzle wraps a driver error as the cause of its own "Failed query" error. */
const wrapped = (cause: unknown) => Object.assign(new Error('Failed query: select 1'), { cause });

const UNAVAILABLE = [
  driverError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
  driverError('ECONNRESET', 'read ECONNRESET'),
  driverError('ENOTFOUND', 'getaddrinfo ENOTFOUND db'),
  driverError('ETIMEDOUT', 'connect ETIMEDOUT'),
  driverError('57P01', 'terminating connection due to administrator command'),
  driverError('57P02', 'terminating connection due to crash of another server process'),
  driverError('57P03', 'the database system is starting up'),
  driverError('08006', 'connection failure'),
  driverError('08001', 'sqlclient unable to establish sqlconnection'),
  new Error('Connection terminated unexpectedly'),
  new Error('Connection terminated due to connection timeout'),
  new Error('timeout exceeded when trying to connect'),
  Object.assign(new AggregateError([driverError('ECONNREFUSED'), driverError('ECONNREFUSED')]), { code: undefined }),
];
const NOT_UNAVAILABLE = [
  driverError('23505', 'duplicate key value violates unique constraint'),
  driverError('22P02', 'invalid input syntax for type uuid'),
  driverError('40001', 'could not serialize access'),
  new Error('Cannot read properties of undefined'),
];

describe('database unavailable errors', () => {
  it('recognises connection failures, directly and wrapped by the query builder', () => {
    for (const err of UNAVAILABLE) {
      expect(isDatabaseUnavailable(err), String(err)).toBe(true);
      expect(isDatabaseUnavailable(wrapped(err)), `wrapped ${String(err)}`).toBe(true);
    }
    for (const err of NOT_UNAVAILABLE) {
      expect(isDatabaseUnavailable(wrapped(err)), String(err)).toBe(false);
    }
  });

  it('answers 503 with a message a person can act on, and keeps other failures a 500', async () => {
    const app = Fastify({ logger: false });
    await app.register(errorsPlugin);
    const errors = [...UNAVAILABLE.map(wrapped), ...NOT_UNAVAILABLE.map(wrapped)];
    app.get<{ Params: { n: string } }>('/fail/:n', async (req) => {
      throw errors[Number(req.params.n)];
    });
    await app.ready();
    for (let n = 0; n < errors.length; n++) {
      const res = await app.inject({ method: 'GET', url: `/fail/${n}` });
      if (n < UNAVAILABLE.length) {
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBe('2');
        expect(res.json()).toEqual({ error: 'The service is temporarily unavailable. Please try again shortly.', code: 'unavailable' });
      } else {
        expect(res.statusCode).toBe(500);
        expect(res.json().code).toBe('internal');
      }
    }
    await app.close();
  });
});
