import { summarizeDiff, type CatalogDiff } from '../../common/catalogDiff';
import type { EditionSummary } from '../db/queries/publishing';
import { esc, renderChanges } from './publicPages';

/**
 * Atom feeds (RFC 4287) of the public editions (docs/decisions/0121-feeds.md): one entry per
 * edition, its summary what changed since the edition before it.
 */
export interface FeedEntry {
  edition: EditionSummary;
  /** The service the edition belongs to, as the edition names it. */
  serviceName: string;
  /** Absolute address of the edition's page. */
  href: string;
  diff: CatalogDiff | null;
}

export interface Feed {
  /** A permanent IRI: the feed's own id. */
  id: string;
  title: string;
  author: string;
  /** Absolute addresses of the feed and of the page it follows. */
  self: string;
  alternate: string;
  entries: FeedEntry[];
}

// Characters XML 1.0 does not allow, whatever a catalog text holds.
// eslint-disable-next-line no-control-regex -- the control characters are what is removed
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const x = (value: string) => esc(value.replace(NOT_XML, ''));

export function renderAtom(feed: Feed): string {
  const updated = feed.entries[0]?.edition.createdAt ?? new Date(0);
  const entries = feed.entries.map((e) => {
    const summary = e.diff ? summarizeDiff(e.diff) : 'First public edition';
    const note = e.edition.note ? `<p>${x(e.edition.note)}</p>` : '';
    const content = `${note}<p>${x(summary)}</p>${e.diff ? renderChanges(e.diff) : ''}`;
    return `<entry>
<title>${x(`${e.serviceName}: ${e.edition.label}`)}</title>
<id>urn:uuid:${e.edition.id}</id>
<updated>${e.edition.createdAt.toISOString()}</updated>
<published>${e.edition.createdAt.toISOString()}</published>
<link rel="alternate" type="text/html" href="${x(e.href)}"/>
<summary type="text">${x(summary)}</summary>
<content type="html">${x(content)}</content>
</entry>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">
<title>${x(feed.title)}</title>
<id>${x(feed.id)}</id>
<updated>${updated.toISOString()}</updated>
<author><name>${x(feed.author)}</name></author>
<link rel="self" type="application/atom+xml" href="${x(feed.self)}"/>
<link rel="alternate" type="text/html" href="${x(feed.alternate)}"/>
${entries.join('\n')}
</feed>
`;
}
