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
