import { useMemo } from 'react';
import { sanitizeForDisplay } from '../lib/sanitize';

/**
 * Renders stored rich text. The server sanitises every write; the browser sanitises again before
 * rendering, so nothing executable reaches the page even from an older or imported record.
 */
export function SafeHtml({ html, className }: { html: string; className?: string }) {
  const clean = useMemo(() => sanitizeForDisplay(html), [html]);
  return <div className={['rich-text', className].filter(Boolean).join(' ')} dangerouslySetInnerHTML={{ __html: clean }} />;
}
