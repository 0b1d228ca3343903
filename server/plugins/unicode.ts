import fp from 'fastify-plugin';
import { fill, M } from '../../common/messages';
import { invalid } from '../errors';

/** A UTF-16 surrogate without its other half: no Unicode character, and no text PostgreSQL can store. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path of the first string (or key) in `value` that is not valid Unicode, as validation names
 * a field (`cells.3.value`); null when every string is. `at` names the value itself.
 */
export function notUnicodeAt(value: unknown, at: string): string | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? at : null;
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return null;
  const prefix = at ? `${at}.` : '';
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = notUnicodeAt(value[i], `${prefix}${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (LONE_SURROGATE.test(key)) return `${prefix}${key.replace(new RegExp(LONE_SURROGATE, 'g'), '\uFFFD')}`;
    const found = notUnicodeAt(inner, `${prefix}${key}`);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Every request's JSON body, query string and path parameters are valid Unicode, or the request
 * is answered 400 naming the field before any route sees it: a JSON escape can spell half of a
 * surrogate pair, which no route can store or compare (PostgreSQL refuses it in text and jsonb).
 */
export const unicodePlugin = fp(async (app) => {
  app.addHook('preValidation', async (req) => {
    const field = notUnicodeAt(req.params, '') ?? notUnicodeAt(req.query, '') ?? notUnicodeAt(req.body, '');
    if (field !== null) throw invalid(fill(M.notUnicode, { field: field || 'The request body' }), field || undefined);
  });
});
