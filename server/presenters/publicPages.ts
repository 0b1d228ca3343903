import { createHash } from 'node:crypto';
import { currentBucket } from '../../common/quarters';
import { htmlToText } from '../../common/richText';
import { summarizeDiff, type CatalogDiff } from '../../common/catalogDiff';
import { sanitizeRichText } from '../content/sanitize';
import type { EditionData, EditionSummary, PublicTenant, PublishedService } from '../db/queries/publishing';

/**
 * The public pages as HTML written by the server (docs/decisions/0120-public-pages.md): no script,
 * one inline style sheet (allowed by its hash), readable with JavaScript off and printable
 * (docs/decisions/0123-print.md). Every value from the catalog is escaped; rich-text descriptions go
 * through the same allow-list as everywhere else.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);
const time = (d: Date | string) => `<time datetime="${esc(new Date(d).toISOString())}">${day(d)}</time>`;

export const PUBLIC_STYLE = `
:root{color-scheme:light;--ink:#1a1b1e;--muted:#495057;--line:#ced4da;--accent:#1c5d99;--added:#ebfbee;--changed:#fff9db}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#fff}
a{color:var(--accent)}
.site{padding:.75rem 1rem;border-bottom:1px solid var(--line)}
main{padding:1rem;max-width:100%}
h1{display:flex;align-items:center;gap:.75rem;margin:.5rem 0;font-size:1.75rem;overflow-wrap:anywhere}
h1 img,.services img{width:48px;height:48px;object-fit:contain}
h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
.muted{color:var(--muted)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%}
th,td{border:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:break-word}
thead th+th{min-width:6.5rem}
thead th{background:#f1f3f5}
tr.category th{background:#e7f5ff;font-size:1rem}
.desc{font-weight:400;font-size:.875rem;color:var(--muted)}
.desc p{margin:.25rem 0}
td.changed{background:var(--changed)}
tr.added th,tr.added td{background:var(--added)}
del{color:#862e2e}
ins{text-decoration:none;font-weight:600}
.tag{display:inline-block;font-size:.75rem;font-weight:600;border:1px solid currentColor;border-radius:4px;padding:0 .25rem;margin-left:.25rem}
.changes{border:1px solid var(--line);border-radius:6px;padding:.25rem 1rem;margin:1rem 0}
ul.services{list-style:none;padding:0}
ul.services li{display:flex;gap:.75rem;padding:.75rem 0;border-bottom:1px solid var(--line)}
footer{padding:1rem;border-top:1px solid var(--line);font-size:.875rem}
@media print{
  @page{size:landscape;margin:12mm}
  body{font-size:10pt}
  .site,footer,.no-print{display:none}
  main{padding:0}
  .scroll{overflow:visible}
  thead{display:table-header-group}
  tr,td,th{break-inside:avoid}
  tr.category{break-after:avoid}
  h2{break-after:avoid}
  a{color:inherit;text-decoration:none}
}
`.trim();

/** The inline style sheet's hash, as the Content-Security-Policy allows it. */
export const PUBLIC_STYLE_HASH = `'sha256-${createHash('sha256').update(PUBLIC_STYLE).digest('base64')}'`;

interface Head {
  title: string;
  description: string;
  /** Absolute address of the page (Open Graph). */
  url: string;
  siteName: string;
  image?: string | null;
  feed?: { title: string; href: string };
}

function page(head: Head, body: string): string {
  const og = [
    ['og:type', 'website'],
    ['og:title', head.title],
    ['og:description', head.description],
    ['og:url', head.url],
    ['og:site_name', head.siteName],
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(head.title)}</title>
<meta name="description" content="${esc(head.description)}">
${og.map(([p, c]) => `<meta property="${p}" content="${esc(c!)}">`).join('\n')}
<link rel="canonical" href="${esc(head.url)}">
${head.feed ? `<link rel="alternate" type="application/atom+xml" title="${esc(head.feed.title)}" href="${esc(head.feed.href)}">` : ''}
<style>${PUBLIC_STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** The one page for every address that shows nothing: unknown, unpublished, archived or deleted alike. */
export function renderNotFound(): string {
  return page(
    { title: 'Page not found', description: 'This page does not exist or is not published.', url: '', siteName: 'Service catalog' },
    `<main><h1>Page not found</h1><p>This page does not exist or is not published.</p></main>`,
  ).replace('<link rel="canonical" href="">\n', '');
}

export function renderTooManyRequests(): string {
  return page(
    { title: 'Too many requests', description: 'Too many requests', url: '', siteName: 'Service catalog' },
    `<main><h1>Too many requests</h1><p>Please wait a minute and try again.</p></main>`,
  ).replace('<link rel="canonical" href="">\n', '');
}

const plain = (text: string, max = 300) => {
  const t = htmlToText(text).replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

const icon = (url: string | null | undefined) => (url && /^data:image\//.test(url) ? `<img src="${esc(url)}" alt="">` : '');

export interface PublicAddresses {
  /** The server's public base address, without a trailing slash. */
  base: string;
  tenant: string;
  service?: string;
}

const tenantPath = (a: PublicAddresses) => `/p/${encodeURIComponent(a.tenant)}`;
const servicePath = (a: PublicAddresses) => `${tenantPath(a)}/${encodeURIComponent(a.service ?? '')}`;

/** The tenant's index: its published services with the date of their last edition. */
export function renderTenantIndex(tenant: PublicTenant, list: PublishedService[], base: string): string {
  const a = { base, tenant: tenant.slug };
  const items = list
    .map(
      (s) => `<li>${icon(s.service.icon_url)}<div><h2><a href="${esc(servicePath({ ...a, service: s.slug }))}">${esc(s.service.name)}</a></h2>
<p>${esc(plain(s.service.description))}</p><p class="muted">Last edition ${time(s.editionAt)}</p></div></li>`,
    )
    .join('\n');
  return page(
    {
      title: `${tenant.name}: published services`,
      description: `Roadmaps published by ${tenant.name}`,
      url: base + tenantPath(a),
      siteName: tenant.name,
      feed: { title: `${tenant.name}: new editions`, href: `${tenantPath(a)}/feed.atom` },
    },
    `<header class="site">${esc(tenant.name)}</header>
<main>
<h1>Published services</h1>
<ul class="services">
${items}
</ul>
</main>
<footer><a href="${esc(tenantPath(a))}/feed.atom">Follow new editions (Atom feed)</a></footer>`,
  );
}

export interface EditionView {
  tenant: PublicTenant;
  slug: string;
  edition: EditionSummary;
  data: EditionData;
  /** The previous public edition and the difference from it; null for the first edition. */
  previous: { edition: EditionSummary; diff: CatalogDiff } | null;
  /** Every public edition, newest first. */
  editions: EditionSummary[];
  /** True on the service's own address (the latest edition). */
  latest: boolean;
  base: string;
  now?: Date;
}

/** The changes from the previous edition, listed (the roadmap below marks them in place). */
export function renderChanges(diff: CatalogDiff): string {
  const items: string[] = [];
  for (const x of diff.added) items.push(`<li>Added: ${esc(x.title)} <span class="muted">(${esc(x.category)})</span></li>`);
  for (const x of diff.removed) items.push(`<li>Removed: ${esc(x.title)} <span class="muted">(${esc(x.category)})</span></li>`);
  for (const x of diff.renamed) items.push(`<li>Renamed: ${esc(x.from_title)} → ${esc(x.title)}</li>`);
  for (const x of diff.moved) items.push(`<li>Moved: ${esc(x.title)} from ${esc(x.from_category)} to ${esc(x.category)}</li>`);
  for (const x of diff.descriptions) items.push(`<li>Description changed: ${esc(x.title)}</li>`);
  for (const x of diff.cells)
    items.push(
      `<li>${esc(x.title)}, ${esc(x.quarter)}: ${x.from ? `<del>${esc(x.from)}</del>` : '<i>empty</i>'} → ${x.to ? `<ins>${esc(x.to)}</ins>` : '<i>empty</i>'}</li>`,
    );
  return items.length ? `<ul>\n${items.join('\n')}\n</ul>` : '';
}

function groups(data: EditionData) {
  const cats = [...data.categories].sort((x, y) => x.position - y.position);
  return cats.map((c) => ({
    category: c,
    aspects: data.resolved_data.aspects.filter((a) => a.category_id === c.id).sort((x, y) => x.position - y.position),
  }));
}

/** One edition of a service: the latest on the service's address, older ones under editions/. */
export function renderEdition(v: EditionView): string {
  const { data, edition, tenant } = v;
  const s = data.service;
  const a = { base: v.base, tenant: tenant.slug, service: v.slug };
  const timeline = data.resolved_data.timeline;
  const diff = v.previous?.diff;
  const added = new Set(diff?.added.map((x) => x.id));
  const described = new Set(diff?.descriptions.map((x) => x.id));
  const cellChanges = new Map(diff?.cells.map((c) => [`${c.aspect_id}|${c.quarter}`, c]));
  const cell = (aspectId: string, quarter: string, value: string) => {
    const change = cellChanges.get(`${aspectId}|${quarter}`);
    if (!change) return `<td>${esc(value)}</td>`;
    return `<td class="changed">${change.from ? `<del><span class="visually-hidden">was </span>${esc(change.from)}</del> ` : ''}${
      value ? `<ins>${esc(value)}</ins>` : '<i>empty</i>'
    }</td>`;
  };
  const aspectHead = (x: EditionData['resolved_data']['aspects'][number]) => {
    const tags = (added.has(x.id) ? '<span class="tag">New</span>' : '') + (described.has(x.id) ? '<span class="tag">Description changed</span>' : '');
    const desc = x.description ? `<div class="desc">${sanitizeRichText(x.description)}</div>` : '';
    return `<th scope="row">${esc(x.title)}${tags}${desc}</th>`;
  };
  const grouped = groups(data);
  const roadmap = grouped
    .map(
      (g) => `<tbody>
<tr class="category"><th colspan="${timeline.length + 1}" scope="colgroup">${esc(g.category.name)}</th></tr>
${g.aspects.map((x) => `<tr${added.has(x.id) ? ' class="added"' : ''}>${aspectHead(x)}${timeline.map((q) => cell(x.id, q, x.availabilities[q] ?? '')).join('')}</tr>`).join('\n')}
</tbody>`,
    )
    .join('\n');
  const now = currentBucket(timeline, v.now);
  const current = now
    ? grouped
        .map(
          (g) => `<tbody>
<tr class="category"><th colspan="2" scope="colgroup">${esc(g.category.name)}</th></tr>
${g.aspects.map((x) => `<tr>${aspectHead(x)}${cell(x.id, now, x.availabilities[now] ?? '')}</tr>`).join('\n')}
</tbody>`,
        )
        .join('\n')
    : '';
  const changes = v.previous
    ? `<section class="changes" aria-labelledby="changes-title">
<h2 id="changes-title">What changed since the previous edition</h2>
<p><strong>${esc(summarizeDiff(v.previous.diff))}</strong> since “${esc(v.previous.edition.label)}” (${time(v.previous.edition.createdAt)}).</p>
${renderChanges(v.previous.diff)}
</section>`
    : `<p class="muted">This is the first public edition.</p>`;
  const editionList = v.editions
    .map((e) => {
      const href = e.id === v.editions[0]?.id ? servicePath(a) : `${servicePath(a)}/editions/${e.id}`;
      const label = `${esc(e.label)}</a> ${time(e.createdAt)}`;
      return `<li>${e.id === edition.id ? `<a href="${esc(href)}" aria-current="page">` : `<a href="${esc(href)}">`}${label}</li>`;
    })
    .join('\n');
  const facts = [
    ['Service owner', s.service_owner],
    ['Subscription model', s.subscription_model],
  ].filter(([, value]) => value);
  const title = v.latest ? `${s.name}: roadmap` : `${s.name}: roadmap, edition ${edition.label}`;
  return page(
    {
      title: `${title} · ${tenant.name}`,
      description: plain(s.description) || `Roadmap of ${s.name}`,
      url: v.base + (v.latest ? servicePath(a) : `${servicePath(a)}/editions/${edition.id}`),
      siteName: tenant.name,
      feed: { title: `${s.name}: new editions`, href: `${servicePath(a)}/feed.atom` },
    },
    `<header class="site"><a href="${esc(tenantPath(a))}">${esc(tenant.name)}</a></header>
<main>
<h1>${icon(s.icon_url)}<span>${esc(s.name)}</span></h1>
<p><strong>${esc(edition.label)}</strong>, an edition published ${time(edition.createdAt)}.${v.latest ? '' : ` <a class="no-print" href="${esc(servicePath(a))}">See the latest edition</a>`}</p>
${edition.note ? `<p class="muted">${esc(edition.note)}</p>` : ''}
${s.description ? `<p>${esc(plain(s.description, 5000))}</p>` : ''}
${facts.length ? `<dl class="facts">${facts.map(([k, value]) => `<dt>${k}</dt><dd>${esc(value!)}</dd>`).join('')}</dl>` : ''}
${changes}
${
  now
    ? `<section aria-labelledby="now-title"><h2 id="now-title">Now: ${esc(now)}</h2>
<div class="scroll"><table>
<thead><tr><th scope="col">Aspect</th><th scope="col">${esc(now)}</th></tr></thead>
${current}
</table></div></section>`
    : ''
}
<section aria-labelledby="roadmap-title"><h2 id="roadmap-title">Roadmap</h2>
<div class="scroll"><table>
<thead><tr><th scope="col">Aspect</th>${timeline.map((q) => `<th scope="col">${esc(q)}</th>`).join('')}</tr></thead>
${roadmap}
</table></div></section>
<section class="no-print" aria-labelledby="editions-title"><h2 id="editions-title">Editions</h2>
<ol>
${editionList}
</ol></section>
</main>
<footer><a href="${esc(servicePath(a))}/feed.atom">Follow new editions (Atom feed)</a></footer>`,
  );
}
