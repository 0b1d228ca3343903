import type { z } from 'zod';
import { invalid } from './errors';

/**
 * Parses input with a shared zod schema; the first problem becomes a 400 naming its field.
 * A missing body is read as an empty object so each field reports its own message.
 */
export function parse<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : undefined;
  let message = issue?.message ?? 'Invalid input';
  if (issue?.code === 'invalid_type' && issue.path.length === 0) message = 'The request body must be a JSON object';
  throw invalid(message, field);
}

/** A request whose route documents its body or query schema (server/routeDoc.ts). */
type Documenting<K extends 'body' | 'query', S extends z.ZodType = z.ZodType> = {
  body?: unknown;
  query?: unknown;
  routeOptions: { config: { doc?: unknown } & { doc: { [P in K]: S } } };
};

function documentedSchema(req: { routeOptions: { config: { doc?: unknown } } }, part: 'body' | 'query'): z.ZodType {
  const schema = (req.routeOptions.config.doc as { body?: z.ZodType; query?: z.ZodType } | undefined)?.[part];
  if (!schema) throw new Error(`the route documents no ${part} schema`);
  return schema;
}

/**
 * The request body parsed with the schema the route documents (`config.doc.body`): the one schema
 * describes the route in the OpenAPI document and validates it. Read where the handler needs it, so
 * that a caller the route refuses hears that before any problem of their input.
 */
export function bodyOf<S extends z.ZodType>(req: Documenting<'body', S>): z.output<S> {
  return parse(documentedSchema(req, 'body'), req.body) as z.output<S>;
}

/** The query string parsed with the schema the route documents (`config.doc.query`); see bodyOf. */
export function queryOf<S extends z.ZodType>(req: Documenting<'query', S>): z.output<S> {
  return parse(documentedSchema(req, 'query'), req.query) as z.output<S>;
}
