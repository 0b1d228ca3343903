import { useMemo } from 'react';
import { sanitizeForDisplay } from '../lib/sanitize';

/** Sanitised values by their stored text: rows scrolled or filtered back into view skip the work. */
const cache = new Map<string, string>();
const CACHE_LIMIT = 5000;

function sanitizedOnce(html: string): string {
  let clean = cache.get(html);
  if (clean === undefined) {
    clean = sanitizeForDisplay(html);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(html, clean);
  }
  return clean;
}

/**
 * Renders stored rich text. The server sanitises every write; the browser sanitises again before
 * rendering, so nothing executable reaches the page even from an older or imported record.
 */
export function SafeHtml({ html, className }: { html: string; className?: string }) {
  const clean = useMemo(() => sanitizedOnce(html), [html]);
  return <div className={['rich-text', className].filter(Boolean).join(' ')} dangerouslySetInnerHTML={{ __html: clean }} />;
}
