import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gunzipSync, gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ICON_MAX_BYTES } from '../../../common/limits';
import { fill, M } from '../../../common/messages';
import { ICON_TOO_LARGE } from '../../../common/schemas/services';
import { IMPORT_MESSAGES as I } from '../../commands/importService';
import { ICON_TOO_MANY_PIXELS, validateIcon } from '../../content/icon';
import { buildTestApp, call, type TestApp } from '../app';
import { createWorld, type World } from '../factories';
import { recordFigure } from './figures';
import {
  catalogDocument,
  dataUrl,
  gif,
  gz,
  gzipBomb,
  JPEG_16,
  JPEG_300x200,
  multipart,
  png,
  svg,
  SVG_PLAIN,
  type CatalogDocument,
} from './uploadFixtures';

/**
 * Suite 6, uploads and imports. Every icon of the matrix goes through the three ways an icon is
 * stored (POST /api/services, PUT /api/services/:id, a .catalog import); every .catalog of the
 * matrix goes through POST /api/services/import. Each case must be refused with a clear message
 * (the exact text, 400 or 413) or accepted cleanly (stored, and served back as a safe value). Each
 * refused case compares the count and a digest of the content of every catalog table before and
 * after: any difference is a partial write.
 */

let t: TestApp;
let w: World;
let target: { id: string; name: string };

const tally = { cases: 0, clean: 0, refused: 0, accepted: 0, partialWrites: 0, icon: 0, catalog: 0 };
const timings: Record<string, number> = {};

beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.app, t.db);
  const res = await call(t.app, 'POST', '/api/services', { ...admin(), body: { name: 'Icon target', slug: 'icon-target' } });
  target = res.json().service;
});

afterAll(async () => {
  recordFigure(
    'uploads',
    `${tally.clean} of ${tally.cases} cases refused with a clear message or accepted cleanly (${tally.refused} refused, ${tally.accepted} accepted; ` +
      `${tally.icon} icon cases through create, edit and import, ${tally.catalog} .catalog cases), ${tally.partialWrites} partial writes`,
    { ...tally, timingsMs: timings },
  );
  await t?.close();
});

const admin = () => ({ token: w.tokens.admin, tenant: w.tenant.slug });

const CATALOG_TABLES = [
  'services',
  'categories',
  'aspects',
  'availabilities',
  'availability_history',
  'snapshots',
  'actor_roles',
  'quick_templates',
  'service_role_assignments',
  'audit_log',
] as const;
type Table = (typeof CATALOG_TABLES)[number];
type State = Record<Table, { n: number; digest: string }>;

/** The row count and a digest of every row of every catalog table. */
async function state(): Promise<State> {
  const query = CATALOG_TABLES.map(
    (table) => `select '${table}' as t, count(*)::int as n, coalesce(md5(string_agg(x::text, '|' order by x::text)), '') as digest from ${table} x`,
  ).join(' union all ');
  const res = (await t.db.execute(sql.raw(query))) as unknown as { rows: { t: Table; n: number; digest: string }[] };
  return Object.fromEntries(res.rows.map((r) => [r.t, { n: Number(r.n), digest: r.digest }])) as State;
}

const deltas = (before: State, after: State) => Object.fromEntries(CATALOG_TABLES.map((table) => [table, after[table].n - before[table].n])) as Record<Table, number>;
const noDeltas = () => Object.fromEntries(CATALOG_TABLES.map((table) => [table, 0])) as Record<Table, number>;

type Reply = Awaited<ReturnType<typeof call>>;

/**
 * Runs one case: the database state before and after, a partial write counted whenever a refused
 * case changed anything, and the case counted clean only once every assertion has passed.
 */
async function runCase(kind: 'icon' | 'catalog', outcome: 'refused' | 'accepted', send: () => Promise<Reply>, check: (res: Reply, before: State, after: State) => Promise<void> | void) {
  const before = await state();
  const res = await send();
  const after = await state();
  tally.cases++;
  tally[kind]++;
  tally[outcome]++;
  const changed = CATALOG_TABLES.some((table) => before[table].n !== after[table].n || before[table].digest !== after[table].digest);
  if (outcome === 'refused' && changed) tally.partialWrites++;
  expect(res.statusCode, `a server error: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  await check(res, before, after);
  tally.clean++;
}

function expectRefused(res: Reply, status: number, message: string | RegExp, before: State, after: State) {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  const error = res.json().error as string;
  if (typeof message === 'string') expect(error).toBe(message);
  else expect(error).toMatch(message);
  expect(after, 'a refused upload changed the database').toEqual(before);
}

// ---------------------------------------------------------------------------------------------
// Icons
// ---------------------------------------------------------------------------------------------

const NAMESPACES = ['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xlink'];
const decodeEntities = (s: string) =>
  s
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * Everything in an SVG document that could run script or fetch something: script and foreign
 * elements, elements that load or animate, handlers, processing instructions and declarations,
 * CSS escapes, and any attribute (entities decoded) that links anywhere but a #fragment.
 */
function unsafeSvg(text: string): string[] {
  const found: string[] = [];
  const elements: [string, RegExp][] = [
    ['script', /<([\w-]+:)?script\b/i],
    ['foreign content', /<([\w-]+:)?(foreignObject|iframe|object|embed|html|body|div|img|a)\b/i],
    ['loading or animating element', /<([\w-]+:)?(image|feImage|font-face-uri|style|animate\w*|set|include)\b/i],
    ['processing instruction or declaration', /<[?!]/],
  ];
  for (const [what, pattern] of elements) if (pattern.test(text)) found.push(what);
  for (const m of text.matchAll(/\s([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/g)) {
    const name = m[1]!.toLowerCase();
    const value = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
    if (/^on/.test(name)) found.push(`handler ${name}`);
    else if (name === 'style' || name === 'xml:base') found.push(`attribute ${name}`);
    else if (name === 'xmlns' || name.startsWith('xmlns:')) {
      if (!NAMESPACES.includes(value)) found.push(`namespace ${value}`);
    } else if (name.endsWith('href')) {
      if (!value.trim().startsWith('#')) found.push(`${name}=${value}`);
    } else if (/\\/.test(value) || /[a-z][\w+.-]*:/i.test(value) || /url\s*\(\s*['"]?\s*(?!#)/i.test(value) || /\/\//.test(value)) {
      found.push(`${name}=${value}`);
    }
  }
  return found;
}

const svgText = (url: string) => Buffer.from(url.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString('utf8');

interface IconCase {
  name: string;
  icon: unknown;
  /** Refused: the status and message of create and edit; an import wraps the message. */
  refuse?: { status: number; message: string; importMessage?: string | RegExp };
  /** Accepted: checks of the stored value (already checked to be served back unchanged). */
  accept?: (stored: string) => void;
  /** A hostile SVG: its raw form must be flagged by unsafeSvg, so the check can fail. */
  hostileSvg?: string;
}

const same = (icon: string) => (stored: string) => expect(stored).toBe(icon);
const safeSvg = (...kept: string[]) => (stored: string) => {
  expect(stored).toMatch(/^data:image\/svg\+xml;base64,/);
  const text = svgText(stored);
  expect(unsafeSvg(text), text).toEqual([]);
  // An svg root in the SVG namespace: what renders as an image.
  expect(text).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  for (const k of kept) expect(text).toContain(k);
  // Sanitising again changes nothing: the stored value is a fixed point of the check.
  expect(validateIcon(stored)).toBe(stored);
};
const svgUrl = (text: string) => dataUrl('image/svg+xml', text);
const hostile = (name: string, text: string, ...kept: string[]): IconCase => ({ name, icon: svgUrl(text), accept: safeSvg('<rect', ...kept), hostileSvg: text });
const refused = (name: string, icon: unknown, status: number, message: string, importMessage?: string | RegExp): IconCase => ({ name, icon, refuse: { status, message, importMessage } });
const tooLong = /^This \.catalog file is invalid: Too big: expected string to have <=200000 characters \(service\.icon_url\)$/;

const PNG_16 = png(16, 16);
const GIF_16 = gif(16, 16);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8L'), Buffer.alloc(14)]);
const HTML = '<!doctype html><html><body><script>alert(1)</script></body></html>';

const ICON_CASES: IconCase[] = [
  // Each allowed type, and the limits themselves.
  { name: 'a PNG (16x16)', icon: dataUrl('image/png', PNG_16), accept: same(dataUrl('image/png', PNG_16)) },
  { name: 'a JPEG (16x16, as the browser writes it)', icon: dataUrl('image/jpeg', JPEG_16), accept: same(dataUrl('image/jpeg', JPEG_16)) },
  { name: 'a GIF (16x16)', icon: dataUrl('image/gif', GIF_16), accept: same(dataUrl('image/gif', GIF_16)) },
  { name: 'an SVG (gradient, shapes, text, internal references)', icon: svgUrl(SVG_PLAIN), accept: safeSvg('viewBox="0 0 24 24"', 'fill="url(#g)"', 'xlink:href="#p"', 'rgb(232, 89, 12)', 'translate(0 1)', '>svc</text>') },
  { name: 'an SVG without its namespace (as copied from a web page)', icon: svgUrl('<svg viewBox="0 0 24 24"><rect width="24" height="24" fill="#1c7ed6"/></svg>'), accept: safeSvg('<rect width="24"') },
  { name: 'a PNG of exactly 256x256 pixels', icon: dataUrl('image/png', png(256, 256)), accept: same(dataUrl('image/png', png(256, 256))) },
  { name: 'a PNG of exactly 100 KB', icon: dataUrl('image/png', png(16, 16, { padTo: ICON_MAX_BYTES })), accept: same(dataUrl('image/png', png(16, 16, { padTo: ICON_MAX_BYTES }))) },

  // Wrong types.
  refused('a WebP image', dataUrl('image/webp', WEBP), 400, M.invalidImageType),
  refused('a BMP image', dataUrl('image/bmp', Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)])), 400, M.invalidImageType),
  refused('an ICO image', dataUrl('image/x-icon', Buffer.from([0, 0, 1, 0, 1, 0])), 400, M.invalidImageType),
  refused('an HTML page', dataUrl('text/html', HTML), 400, M.invalidFileType),
  refused('a PDF', dataUrl('application/pdf', '%PDF-1.7\n'), 400, M.invalidFileType),
  refused('a link to an image elsewhere', 'https://evil.example/icon.png', 400, M.invalidFileType),
  refused('a javascript: URL', 'javascript:alert(1)', 400, M.invalidFileType),
  refused('an SVG data URL that is not base64', `data:image/svg+xml,${encodeURIComponent(SVG_PLAIN)}`, 400, M.invalidImageType),
  refused('a data URL with a charset parameter', `data:image/png;charset=utf-8;base64,${PNG_16.toString('base64')}`, 400, M.invalidImageType),
  refused('an empty image', 'data:image/png;base64,', 400, M.invalidFileType),
  refused('a number', 42, 400, M.invalidFileType, /^This \.catalog file is invalid: .*expected string.* \(service\.icon_url\)$/),

  // Wrong magic bytes behind a right name.
  refused('a JPEG declared as PNG', dataUrl('image/png', JPEG_16), 400, M.invalidFileType),
  refused('a PNG declared as JPEG', dataUrl('image/jpeg', PNG_16), 400, M.invalidFileType),
  refused('a GIF declared as PNG', dataUrl('image/png', GIF_16), 400, M.invalidFileType),
  refused('an HTML page with script declared as GIF', dataUrl('image/gif', HTML), 400, M.invalidFileType),
  refused('an SVG with script declared as PNG', dataUrl('image/png', svg('<script>alert(1)</script>')), 400, M.invalidFileType),
  refused('a PNG declared as SVG', dataUrl('image/svg+xml', PNG_16), 400, M.invalidFileType),
  refused('an HTML page declared as SVG', dataUrl('image/svg+xml', HTML), 400, M.invalidFileType),
  refused('a PNG signature with no image header', dataUrl('image/png', PNG_16.subarray(0, 12)), 400, M.invalidFileType),
  refused('a JPEG signature with no frame header', dataUrl('image/jpeg', Buffer.concat([JPEG_16.subarray(0, 20), Buffer.from([0xff, 0xda, 0, 2])])), 400, M.invalidFileType),
  refused('a GIF signature with a cut header', dataUrl('image/gif', GIF_16.subarray(0, 8)), 400, M.invalidFileType),

  // Oversized: bytes, then pixels (a small file must not declare a huge picture).
  refused('a PNG of 100 KB and 1 byte', dataUrl('image/png', png(16, 16, { padTo: ICON_MAX_BYTES + 1 })), 413, fill(M.imageTooLarge, { size: 101 })),
  refused('a PNG of 140 KB', dataUrl('image/png', png(16, 16, { padTo: 140 * 1024 })), 413, fill(M.imageTooLarge, { size: 140 })),
  refused('a data URL four times longer than the limit', dataUrl('image/png', png(16, 16, { padTo: 420 * 1024 })), 400, ICON_TOO_LARGE, tooLong),
  refused('a request body over 1 MB', dataUrl('image/png', png(16, 16, { padTo: 900 * 1024 })), 413, 'The request body is too large', tooLong),
  refused('a PNG 257 pixels wide', dataUrl('image/png', png(257, 1)), 400, ICON_TOO_MANY_PIXELS),
  refused('a PNG 257 pixels high', dataUrl('image/png', png(1, 257)), 400, ICON_TOO_MANY_PIXELS),
  refused('a JPEG of 300x200 pixels', dataUrl('image/jpeg', JPEG_300x200), 400, ICON_TOO_MANY_PIXELS),
  refused('a GIF of 300x200 pixels', dataUrl('image/gif', gif(300, 200)), 400, ICON_TOO_MANY_PIXELS),
  refused('a pixel bomb: a 48 KB PNG of 20000x20000 pixels', dataUrl('image/png', png(20000, 20000, { bitDepth: 1 })), 400, ICON_TOO_MANY_PIXELS),
  refused('a GIF whose frame is larger than its screen', dataUrl('image/gif', gif(16, 16, { width: 5000, height: 5000 })), 400, ICON_TOO_MANY_PIXELS),

  // SVG with script: stored with the script removed.
  hostile('an SVG with script elements', svg('<script>alert(1)</script><script xlink:href="https://evil.example/x.js"/><script type="text/ecmascript"><![CDATA[alert(2)]]></script>')),
  hostile('an SVG with event handlers', svg('<circle r="4" onclick="alert(1)" onmouseover="alert(2)"/><g onfocusin="alert(3)"><rect width="1" height="1"/></g>', ' onload="alert(1)"'), '<circle r="4"'),
  hostile('an SVG with a prefixed script element', svg('<svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(1)</svg:script>')),
  hostile('an SVG with foreignObject', svg('<foreignObject width="24" height="24"><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="javascript:alert(1)"></iframe><img src="x" onerror="alert(1)"/></body></foreignObject>')),
  hostile(
    'an SVG with javascript: links and animated links',
    svg('<a href="javascript:alert(1)"><text>x</text></a><a xlink:href="javascript:alert(2)"><rect width="1" height="1"/></a><animate attributeName="href" values="javascript:alert(3)"/><set attributeName="onclick" to="alert(4)"/>'),
  ),
  hostile('an SVG with a style element and style attributes', svg('<style>@import url(https://evil.example/a.css);rect{fill:url(https://evil.example/b.svg#p)}</style><rect style="fill:url(https://evil.example/c)" width="2" height="2"/>')),

  // SVG with external references: stored without them.
  hostile('an SVG with external images', svg('<image href="https://evil.example/p.png" width="24" height="24"/><image xlink:href="http://evil.example/q.png"/><image href="file:///etc/passwd"/>')),
  hostile('an SVG using other files', svg('<use href="https://evil.example/sprite.svg#icon"/><use xlink:href="sprite.svg#icon"/><use href="//evil.example/s.svg#i"/><use href="#ok"/>'), '<use href="#ok"'),
  hostile(
    'an SVG with url() to other files in presentation attributes',
    svg(`<rect width="4" height="4" fill="url(https://evil.example/p.svg#g)" filter="url('sprite.svg#f')" mask="url(&quot;//evil.example/m&quot;)" clip-path="url(#c)"/>`),
    'clip-path="url(#c)"',
  ),
  hostile(
    'an SVG hiding references behind CSS escapes and entities',
    svg('<rect width="4" height="4" fill="\\75 rl(https://evil.example/a)"/><rect fill="u\\rl(https://evil.example/b)"/><rect fill="u&#114;l(https://evil.example/c)"/><use href="&#104;ttps://evil.example/d.svg#x"/>'),
  ),
  hostile('an SVG with other fetching functions', svg(`<rect fill="image-set('https://evil.example/a.png' 1x)"/><rect fill="src(https://evil.example/b)"/>`)),
  hostile('an SVG with data: URLs', svg('<use href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=#x"/><image href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"/><rect fill="url(data:image/png;base64,AAAA)"/>')),
  hostile('an SVG with filter images and font files', svg('<filter id="f"><feImage href="https://evil.example/p.png"/></filter><font-face><font-face-src><font-face-uri xlink:href="https://evil.example/f.svg#x"/></font-face-src></font-face>'), '<filter id="f"'),
  hostile(
    'an SVG with a stylesheet instruction, xml:base and XInclude inside',
    svg('<?xml-stylesheet href="https://evil.example/x.css"?><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd"/>', ' xml:base="https://evil.example/"'),
  ),
  hostile('an SVG declaring another namespace as its own', svg('').replace('xmlns="http://www.w3.org/2000/svg"', 'xmlns="http://www.w3.org/1999/xhtml"')),

  // SVG that is not a plain svg document: refused.
  refused(
    'an SVG declaring entities (XXE, billion laughs)',
    svgUrl('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>' + svg('<text>&xxe;&b;</text>')),
    400,
    M.invalidFileType,
  ),
  refused('an SVG with a stylesheet instruction before the root', svgUrl(`<?xml version="1.0"?><?xml-stylesheet href="https://evil.example/x.css"?>${svg('')}`), 400, M.invalidFileType),
  refused('an SVG that is not well formed', svgUrl('<svg/onload=alert(1)>'), 400, M.invalidFileType),
];

type IconRoute = 'create' | 'edit' | 'import';
const ICON_ROUTES: IconRoute[] = ['create', 'edit', 'import'];
let slugs = 0;

async function sendIcon(route: IconRoute, icon: unknown): Promise<Reply> {
  if (route === 'create') return call(t.app, 'POST', '/api/services', { ...admin(), body: { name: 'Icon case', slug: `icon-case-${++slugs}`, icon_url: icon } });
  if (route === 'edit') return call(t.app, 'PUT', `/api/services/${target.id}`, { ...admin(), body: { name: target.name, icon_url: icon } });
  const doc = catalogDocument(1);
  (doc.service as Record<string, unknown>).icon_url = icon;
  return upload(gz(doc));
}

/** The rows an import of a document with these aspects and availabilities adds. */
function importDeltas(aspects: number, availabilities: number) {
  return {
    ...noDeltas(),
    services: 1,
    categories: 1,
    aspects,
    availabilities,
    availability_history: availabilities,
    actor_roles: 1,
    quick_templates: 1,
    audit_log: 1,
  };
}

describe('icon matrix: create, edit and import', () => {
  it('flags every hostile SVG in its raw form, and nothing in a plain icon', () => {
    for (const c of ICON_CASES.filter((c) => c.hostileSvg)) expect(unsafeSvg(c.hostileSvg!), c.name).not.toEqual([]);
    expect(unsafeSvg(svgText(validateIcon(svgUrl(SVG_PLAIN))))).toEqual([]);
  });

  for (const c of ICON_CASES) {
    for (const route of ICON_ROUTES) {
      it(`${c.refuse ? 'refuses' : 'accepts'} ${c.name} (${route})`, async () => {
        await runCase('icon', c.refuse ? 'refused' : 'accepted', () => sendIcon(route, c.icon), async (res, before, after) => {
          if (c.refuse) {
            const wrapped = `${I.invalidContent}: ${c.refuse.message} (service.icon_url)`;
            if (route === 'import') expectRefused(res, 400, c.refuse.importMessage ?? wrapped, before, after);
            else expectRefused(res, c.refuse.status, c.refuse.message, before, after);
            return;
          }
          expect(res.statusCode, res.body.slice(0, 300)).toBe({ create: 201, edit: 200, import: 201 }[route]);
          const stored = res.json().service.icon_url as string;
          c.accept!(stored);
          const id = route === 'edit' ? target.id : (res.json().service.id as string);
          const served = await call(t.app, 'GET', `/api/services/${id}`, admin());
          expect(served.json().service.icon_url).toBe(stored);
          const expected = route === 'create' ? { ...noDeltas(), services: 1, audit_log: 1 } : route === 'edit' ? noDeltas() : importDeltas(1, 1);
          // An edit may or may not write an audit row; it adds no other row.
          const got = deltas(before, after);
          if (route === 'edit') got.audit_log = 0;
          expect(got).toEqual(expected);
        });
      });
    }
  }
});

// ---------------------------------------------------------------------------------------------
// .catalog files
// ---------------------------------------------------------------------------------------------

function upload(file: Buffer, filename = 'service.catalog') {
  const { body, headers } = multipart([{ field: 'file', filename, content: file }]);
  return call(t.app, 'POST', '/api/services/import', { ...admin(), body, headers });
}

function uploadBody(parts: Parameters<typeof multipart>[0], end = true) {
  const { body, headers } = multipart(parts, end);
  return call(t.app, 'POST', '/api/services/import', { ...admin(), body, headers });
}

/** The imported service as its export gives it back, without ids, slug and export time. */
async function exportedContent(serviceId: string) {
  const res = await call(t.app, 'GET', `/api/services/${serviceId}/export`, admin());
  expect(res.statusCode).toBe(200);
  const doc = JSON.parse(gunzipSync(res.rawPayload).toString('utf8')) as CatalogDocument;
  return normalise(doc);
}

function normalise(doc: CatalogDocument) {
  const category = new Map(doc.categories.map((c) => [c.id, c.name]));
  const aspect = new Map(doc.aspects.map((a) => [a.id, a.title]));
  return {
    service: { ...doc.service, slug: undefined },
    categories: doc.categories.map((c) => [c.name, c.position]),
    aspects: doc.aspects.map((a) => [category.get(a.category_id), a.title, a.description ?? '', a.is_public, a.position]).sort((x, y) => Number(x[4]) - Number(y[4])),
    availabilities: doc.availabilities.map((v) => `${aspect.get(v.aspect_id)}|${v.time_bucket}|${v.value}`).sort(),
    roles: doc.roles.map((r) => [r.role_name, r.position]),
    templates: doc.templates.map((r) => [r.template_text, r.position]),
  };
}

/** An accepted import: 201, exactly the rows of the document, and the document given back by export. */
async function expectImported(res: Reply, before: State, after: State, doc: CatalogDocument) {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
  expect(deltas(before, after)).toEqual(importDeltas(doc.aspects.length, doc.availabilities.length));
  const created = res.json().service;
  expect(created.tenant_id).toBe(w.tenant.id);
  expect(await exportedContent(created.id)).toEqual(normalise(doc));
  return created as { id: string; name: string; slug: string };
}

const VALID = catalogDocument(3);
const validJson = JSON.stringify(VALID);
const withKey = (path: 'root' | 'service' | 'category' | 'aspect', key: string, value: string) => {
  const insert = `"${key}":${value},`;
  const anchor = { root: '{"format"', service: '"service":{', category: '"categories":[{', aspect: '"aspects":[{' }[path];
  const at = validJson.indexOf(anchor) + anchor.length - (path === 'root' ? '"format"'.length : 0);
  return validJson.slice(0, at) + insert + validJson.slice(at);
};
const nested = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);
const polluted = () => Object.keys(Object.prototype).length > 0 || ({} as Record<string, unknown>).polluted !== undefined || ({} as Record<string, unknown>).admin !== undefined;

interface CatalogCase {
  name: string;
  send: () => Promise<Reply>;
  status: number;
  message: string | RegExp;
}

const file = (name: string, make: () => Buffer, status: number, message: string | RegExp): CatalogCase => ({ name, send: () => upload(make()), status, message });
const invalidContent = (where: string) => new RegExp(`^This \\.catalog file is invalid: .+ \\(${where.replace(/\./g, '\\.')}\\)$`);

const CATALOG_REFUSED: CatalogCase[] = [
  // Not gzip.
  file('plain JSON (not gzip)', () => Buffer.from(validJson), 400, I.notGzip),
  file('a ZIP archive', () => Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(60)]), 400, I.notGzip),
  file('a PNG renamed .catalog', () => PNG_16, 400, I.notGzip),
  file('an empty file', () => Buffer.alloc(0), 400, I.notGzip),
  file('one byte', () => Buffer.from([0x1f]), 400, I.notGzip),
  // Truncated or damaged gzip.
  file('only the gzip magic bytes', () => Buffer.from([0x1f, 0x8b]), 400, I.corrupt),
  file('the first half of a valid file', () => gz(VALID).subarray(0, Math.floor(gz(VALID).length / 2)), 400, I.corrupt),
  file('a valid file without its last 8 bytes (checksum and size)', () => gz(VALID).subarray(0, gz(VALID).length - 8), 400, I.corrupt),
  file('a valid file with a wrong checksum', () => {
    const f = Buffer.from(gz(VALID));
    f[f.length - 8] ^= 0xff;
    return f;
  }, 400, I.corrupt),
  file('a damaged deflate stream', () => {
    const f = Buffer.from(gz(VALID));
    f[10] = 0xff;
    return f;
  }, 400, I.corrupt),
  // Gzip bombs and size limits.
  file('a gzip bomb: 1 GB of spaces in 1 MB', () => gzipBomb(10 * 1024 * 1024, 100), 413, I.tooLargeUnpacked),
  file('a gzip bomb behind the start of a valid document', () => gzipBomb(10 * 1024 * 1024, 10, '{"format":"service-catalog","version":1,"service":{"name":"'), 413, I.tooLargeUnpacked),
  file('a file over 10 MB', () => Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(10 * 1024 * 1024 + 10)]), 413, I.tooLargeCompressed),
  // Not a catalog document.
  file('a gzip inside a gzip', () => gzipSync(gz(VALID)), 400, I.badJson),
  file('text that is not JSON', () => gz('{"format": "service-catalog",'), 400, I.badJson),
  file('a JSON array', () => gz('[]'), 400, I.wrongFormat),
  file('JSON null', () => gz('null'), 400, I.wrongFormat),
  file('a JSON string', () => gz('"service-catalog"'), 400, I.wrongFormat),
  file('another format', () => gz({ ...VALID, format: 'other-catalog' }), 400, I.wrongFormat),
  file('no format', () => gz({ ...VALID, format: undefined }), 400, I.wrongFormat),
  // Wrong version.
  file('version 2', () => gz({ ...VALID, version: 2 }), 400, I.wrongVersion),
  file('version 0', () => gz({ ...VALID, version: 0 }), 400, I.wrongVersion),
  file('version "1" (a string)', () => gz({ ...VALID, version: '1' }), 400, I.wrongVersion),
  file('version null', () => gz({ ...VALID, version: null }), 400, I.wrongVersion),
  file('no version', () => gz({ ...VALID, version: undefined }), 400, I.wrongVersion),
  // Deep nesting.
  file('100,000 nested arrays', () => gz(nested(100_000, '[', ']')), 400, I.tooDeep),
  file('100,000 nested objects', () => gz(nested(100_000, '{"a":', '}')), 400, I.tooDeep),
  file('100,000 nested arrays as the service name', () => gz(validJson.replace('"name":"Imported"', `"name":${nested(100_000, '[', ']')}`)), 400, I.tooDeep),
  file('1,000 nested objects in an unknown field', () => gz(withKey('root', 'extra', nested(1000, '{"a":', '}'))), 400, /^This \.catalog file is invalid: .*extra/),
  file('1,000 nested arrays as an aspect title', () => gz(validJson.replace('"title":"Aspect 0"', `"title":${nested(1000, '[', ']')}`)), 400, invalidContent('aspects.0.title')),
  // Prototype-pollution keys at several levels.
  file('__proto__ at the top', () => gz(withKey('root', '__proto__', '{"polluted":true}')), 400, I.forbiddenKey),
  file('__proto__ in the service', () => gz(withKey('service', '__proto__', '{"admin":true}')), 400, I.forbiddenKey),
  file('__proto__ in a category', () => gz(withKey('category', '__proto__', '{"polluted":true}')), 400, I.forbiddenKey),
  file('__proto__ in an aspect, nested twice', () => gz(withKey('aspect', '__proto__', '{"__proto__":{"polluted":true}}')), 400, I.forbiddenKey),
  file('constructor.prototype at the top', () => gz(withKey('root', 'constructor', '{"prototype":{"polluted":true}}')), 400, I.forbiddenKey),
  file('constructor in the service', () => gz(withKey('service', 'constructor', '{"name":"x"}')), 400, I.forbiddenKey),
  file('prototype in an aspect', () => gz(withKey('aspect', 'prototype', '{"polluted":true}')), 400, I.forbiddenKey),
  file('__proto__ spelt with JSON escapes', () => gz(withKey('root', '\\u005f\\u005fproto\\u005f\\u005f', '{"polluted":true}')), 400, I.forbiddenKey),
  // Content the database cannot hold, or that contradicts itself.
  file('a null character in a category name', () => gz({ ...VALID, categories: [{ id: 'c1', name: 'Core\u0000', position: 0 }] }), 400, I.nulCharacter),
  file('a null character in an availability', () => gz({ ...VALID, availabilities: [{ aspect_id: 'a0', time_bucket: '2025-Q1', value: 'G\u0000A' }] }), 400, I.nulCharacter),
  file('an aspect of an unknown category', () => gz({ ...VALID, aspects: [{ ...VALID.aspects[0]!, category_id: 'nowhere' }] }), 400, invalidContent('aspects')),
  file('two aspects with one id', () => gz({ ...VALID, aspects: [VALID.aspects[0]!, VALID.aspects[0]!], availabilities: [] }), 400, invalidContent('aspects')),
  // How the file is sent.
  { name: 'the file under another field name', send: () => uploadBody([{ field: 'upload', filename: 'service.catalog', content: gz(VALID) }]), status: 400, message: I.fileRequired },
  { name: 'the file as a text field', send: () => uploadBody([{ field: 'file', content: 'H4sIAAAAAAAAA6uuBQBDv6ajAgAAAA==' }]), status: 400, message: I.fileRequired },
  { name: 'no file, only a text field', send: () => uploadBody([{ field: 'note', content: 'hello' }]), status: 400, message: I.fileRequired },
  { name: 'a JSON body instead of a file', send: () => call(t.app, 'POST', '/api/services/import', { ...admin(), body: VALID }), status: 400, message: I.fileRequired },
  { name: 'a multipart body cut off inside the file', send: () => uploadBody([{ field: 'file', filename: 'service.catalog', content: gz(VALID) }], false), status: 400, message: I.incompleteUpload },
];

describe('.catalog matrix: refused files leave every catalog table unchanged', () => {
  for (const c of CATALOG_REFUSED) {
    it(`refuses ${c.name}`, async () => {
      const started = Date.now();
      await runCase('catalog', 'refused', c.send, (res, before, after) => expectRefused(res, c.status, c.message, before, after));
      expect(polluted(), 'Object.prototype was polluted').toBe(false);
      if (/bomb/.test(c.name)) timings[c.name] = Date.now() - started;
    });
  }

  it('refuses 100,001 aspects with the limit in the message', async () => {
    const doc = catalogDocument(100_001, 100);
    const started = Date.now();
    await runCase('catalog', 'refused', () => upload(gz(doc)), (res, before, after) =>
      expectRefused(res, 400, 'This .catalog file is invalid: Too big: expected array to have <=100000 items (aspects)', before, after),
    );
    timings['100,001 aspects refused'] = Date.now() - started;
  });
});

describe('.catalog matrix: accepted files are imported whole', () => {
  it('imports a valid file: every row of it, given back by export', async () => {
    const doc = { ...VALID, service: { ...VALID.service, icon_url: dataUrl('image/png', PNG_16) } };
    await runCase('catalog', 'accepted', () => upload(gz(doc)), async (res, before, after) => {
      await expectImported(res, before, after, doc);
    });
  });

  it('imports a file sent as several gzip members (valid gzip)', async () => {
    const text = Buffer.from(validJson);
    const f = Buffer.concat([gzipSync(text.subarray(0, 100)), gzipSync(text.subarray(100))]);
    await runCase('catalog', 'accepted', () => upload(f), (res, before, after) => expectImported(res, before, after, VALID).then(() => undefined));
  });

  it('imports names that spell __proto__, constructor and prototype as plain text', async () => {
    const doc = catalogDocument(3);
    doc.service.name = '__proto__';
    doc.categories = [{ id: '__proto__', name: 'constructor', position: 0 }];
    doc.aspects = doc.aspects.map((a, i) => ({ ...a, id: ['__proto__', 'constructor', 'prototype'][i]!, category_id: '__proto__', title: ['__proto__', 'constructor.prototype', 'prototype'][i]! }));
    doc.availabilities = doc.aspects.map((a) => ({ aspect_id: a.id, time_bucket: '2025-Q1', value: '__proto__' }));
    await runCase('catalog', 'accepted', () => upload(gz(doc)), async (res, before, after) => {
      const created = await expectImported(res, before, after, doc);
      expect(created.name).toBe('__proto__');
      expect(polluted()).toBe(false);
    });
  });

  it('imports the first of two files and nothing of the second', async () => {
    const first = { ...VALID, service: { ...VALID.service, name: 'First of two' } };
    const second = { ...VALID, service: { ...VALID.service, name: 'Second of two' } };
    const send = () =>
      uploadBody([
        { field: 'file', filename: 'first.catalog', content: gz(first) },
        { field: 'file', filename: 'second.catalog', content: gz(second) },
      ]);
    await runCase('catalog', 'accepted', send, async (res, before, after) => {
      await expectImported(res, before, after, first);
      const names = (await call(t.app, 'GET', '/api/services', admin())).json().services.map((s: { name: string }) => s.name);
      expect(names).not.toContain('Second of two');
    });
  });

  it('imports a file that follows a text field', async () => {
    const send = () => uploadBody([{ field: 'note', content: 'hello' }, { field: 'file', filename: 'service.catalog', content: gz(VALID) }]);
    await runCase('catalog', 'accepted', send, (res, before, after) => expectImported(res, before, after, VALID).then(() => undefined));
  });

  it('imports 100,000 aspects in one transaction while the server keeps answering', async () => {
    const doc = catalogDocument(100_000, 10);
    const file = gz(doc);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const started = Date.now();
    let importDone = 0;
    const probes: Record<'light' | 'health', { status: number; at: number }> = { light: { status: 0, at: 0 }, health: { status: 0, at: 0 } };
    const probe = async (name: 'light' | 'health', url: string) => {
      const res = await t.app.inject({ method: 'GET', url });
      probes[name] = { status: res.statusCode, at: Date.now() };
    };
    await runCase(
      'catalog',
      'accepted',
      async () => {
        loop.enable();
        const pending = upload(file).then((res) => {
          importDone = Date.now();
          return res;
        });
        // Requests sent while the import runs: one the process answers alone, one that needs the database.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await Promise.all([probe('light', '/api/no-such-route'), probe('health', '/api/health')]);
        const res = await pending;
        loop.disable();
        return res;
      },
      async (res, before, after) => {
        expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
        expect(deltas(before, after)).toEqual(importDeltas(100_000, 10_000));
        const id = res.json().service.id as string;
        const rows = (await t.db.execute(
          sql`select count(*)::int as n, min(position)::int as first, max(position)::int as last, count(distinct title)::int as titles,
                     sum(case when is_public then 1 else 0 end)::int as public from aspects where service_id = ${id}`,
        )) as unknown as { rows: { n: number; first: number; last: number; titles: number; public: number }[] };
        expect(rows.rows[0]).toEqual({ n: 100_000, first: 0, last: 99_999, titles: 100_000, public: 50_000 });
      },
    );
    timings['100,000 aspects imported'] = importDone - started;
    timings['request without the database, answered after'] = probes.light.at - started;
    timings['health check, answered after'] = probes.health.at - started;
    timings['longest event-loop stall during the import'] = Math.round(loop.max / 1e6);
    timings['100,000-aspect file size (KB)'] = Math.round(file.length / 1024);
    // The process answers while the import runs; on PostgreSQL so does the database (the embedded
    // database serves one session, so a request that needs it waits for the import's transaction).
    expect(probes.light.status).toBe(404);
    expect(probes.light.at).toBeLessThan(importDone);
    expect(probes.health.status).toBe(200);
    if (process.env.TEST_DATABASE_URL) expect(probes.health.at).toBeLessThan(importDone);
    const afterwards = Date.now();
    expect((await call(t.app, 'GET', '/api/health')).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/services', admin())).statusCode).toBe(200);
    timings['health and service list after the import'] = Date.now() - afterwards;
  }, 120_000);
});
