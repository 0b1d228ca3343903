import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeRichText } from '../../content/sanitize';
import { buildTestApp, call, type TestApp } from '../app';
import { createWorld, type World } from '../factories';
import { recordFigure } from './figures';
import { executableConstructs } from './xssCheck';
import { XSS_CORPUS } from './xssCorpus';

/**
 * Suite 5 on the server: every hostile payload written through the API is stored without any
 * construct that could run script, and a property test shows the sanitiser never lets one through
 * for arbitrary mixes of HTML fragments.
 */
const PROPERTY_RUNS = Number(process.env.XSS_PROPERTY_RUNS ?? 10_000);

let t: TestApp;
let world: World;
let checked = 0;
let unsafe = 0;

function expectSafe(html: string, where: string) {
  const found = executableConstructs(html);
  checked++;
  if (found.length) unsafe++;
  expect(found, `${where}: ${html.slice(0, 200)}`).toEqual([]);
}

beforeAll(async () => {
  t = await buildTestApp();
  world = await createWorld(t.app, t.db);
});

afterAll(async () => {
  recordFigure(
    'stored-xss-server',
    `${unsafe} executable constructs in ${checked} sanitised outputs (${XSS_CORPUS.length} payloads through the API, ${PROPERTY_RUNS} property cases)`,
    {
      corpus: XSS_CORPUS.length,
      checked,
      unsafe,
      propertyRuns: PROPERTY_RUNS,
    },
  );
  await t?.close();
});

const as = () => ({ token: world.tokens.editor, tenant: world.tenant.slug });
const asAdmin = () => ({ token: world.tokens.admin, tenant: world.tenant.slug });

describe('the hostile corpus and its check', () => {
  it('holds at least 100 payloads, and the check finds an executable construct in the raw ones', () => {
    expect(XSS_CORPUS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(XSS_CORPUS).size).toBe(XSS_CORPUS.length);
    const flagged = XSS_CORPUS.filter((p) => executableConstructs(p).length > 0);
    // Only payloads that are already inert text (escaped markup, template syntax) pass unflagged.
    expect(flagged.length).toBeGreaterThanOrEqual(XSS_CORPUS.length - 10);
    for (const raw of ['<script>x</script>', '<p onclick=x>', '<a href="jav&#x09;ascript:x">', '<a href=" data:text/html,x">', '<svg>', '<p>a < b</p>']) {
      expect(executableConstructs(raw), raw).not.toEqual([]);
    }
    expect(executableConstructs('<p>Plain <strong>bold</strong> <a href="https://example.com" target="_blank" rel="noopener noreferrer">link</a></p>')).toEqual(
      [],
    );
  });

  it('sanitises every payload to safe text that sanitising again leaves unchanged', () => {
    for (const payload of XSS_CORPUS) {
      const clean = sanitizeRichText(payload);
      expectSafe(clean, 'sanitised');
      expect(sanitizeRichText(clean)).toBe(clean);
    }
  });
});

describe('hostile rich text written through the API', () => {
  it('stores aspect descriptions created and edited with every payload without an executable construct', async () => {
    const service = (await call(t.app, 'POST', '/api/services', { ...asAdmin(), body: { name: 'XSS aspects', slug: 'xss-aspects' } })).json().service;
    const category = (await call(t.app, 'POST', '/api/categories', { ...as(), body: { serviceId: service.id, name: 'Hostile' } })).json().category;
    for (const [i, payload] of XSS_CORPUS.entries()) {
      const created = await call(t.app, 'POST', '/api/aspects', {
        ...as(),
        body: { serviceId: service.id, categoryId: category.id, title: `Payload ${i}`, description: payload, isPublic: true },
      });
      expect(created.statusCode).toBe(201);
      expectSafe(created.json().aspect.description, `created aspect ${i}`);
      const edited = await call(t.app, 'PUT', `/api/aspects/${created.json().aspect.id}`, {
        ...as(),
        body: { title: payload.slice(0, 200), description: `<p>edited</p>${payload}` },
      });
      expect(edited.statusCode).toBe(200);
      expectSafe(edited.json().aspect.description, `edited aspect ${i}`);
    }
    const full = await call(t.app, 'GET', `/api/services/${service.id}/full`, { token: world.tokens.reader, tenant: world.tenant.slug });
    const aspects = full.json().resolved_data.aspects as Array<{ description: string }>;
    expect(aspects).toHaveLength(XSS_CORPUS.length);
    for (const a of aspects) expectSafe(a.description, 'aspect read back');
  });

  it('stores service descriptions created and edited with every payload without an executable construct', async () => {
    const created = await call(t.app, 'POST', '/api/services', {
      ...asAdmin(),
      body: { name: 'XSS service', slug: 'xss-service', description: XSS_CORPUS.join('\n') },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().service.id;
    expectSafe(created.json().service.description, 'created service');
    for (const [i, payload] of XSS_CORPUS.entries()) {
      const edited = await call(t.app, 'PUT', `/api/services/${id}`, { ...asAdmin(), body: { name: 'XSS service', description: payload } });
      expect(edited.statusCode).toBe(200);
      expectSafe(edited.json().service.description, `edited service ${i}`);
    }
    const read = await call(t.app, 'GET', `/api/services/${id}`, { token: world.tokens.reader, tenant: world.tenant.slug });
    expectSafe(read.json().service.description, 'service read back');
  });
});

/** Pieces of markup that, combined at random, reach the corners of an HTML parser. */
const FRAGMENTS = [
  '<',
  '>',
  '/',
  '"',
  "'",
  '=',
  ' ',
  '\n',
  '\t',
  '\u0000',
  '&',
  ';',
  '#',
  '`',
  '-->',
  '<!--',
  '<![CDATA[',
  ']]>',
  '<!',
  '<?',
  '?>',
  '<script>',
  '</script>',
  '<script',
  'script',
  '<img',
  ' src=x',
  ' onerror=',
  ' onload=',
  ' onclick=',
  'window.__xss.push(1)',
  'alert(1)',
  '<a',
  '<a href="',
  '<a href=',
  ' href=',
  'javascript:',
  'JaVaScRiPt:',
  'data:text/html,',
  'vbscript:',
  '&#106;',
  '&#x6A;',
  '&colon;',
  '&Tab;',
  '&#x09;',
  '&lt;',
  '&gt;',
  '&quot;',
  '<svg',
  '<svg>',
  '</svg>',
  '<math>',
  '<mtext>',
  '<mglyph>',
  '<table>',
  '<style>',
  '</style>',
  '<noscript>',
  '</noscript>',
  '<textarea>',
  '</textarea>',
  '<template>',
  '</template>',
  '<title>',
  '</title>',
  '<iframe',
  ' srcdoc=',
  '<object',
  '<embed',
  '<form',
  ' action=',
  ' formaction=',
  '<base href=',
  '<meta http-equiv=refresh content="0;url=',
  ' style="',
  'expression(',
  'url(',
  '<p>',
  '</p>',
  '<strong>',
  '</strong>',
  '<em>',
  '<ul><li>',
  '</li></ul>',
  '<h1>',
  '<br>',
  '<span>',
  '</span>',
  '<pre>',
  '<code>',
  '<blockquote>',
  '</a>',
  ' title="',
  ' target=',
  ' rel=',
  'https://example.com',
  'mailto:x@example.com',
  '//evil.example',
  'xlink:href=',
];

const htmlMix = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...FRAGMENTS) },
      { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
      { weight: 1, arbitrary: fc.constantFrom(...XSS_CORPUS) },
    ),
    {
      maxLength: 30,
    },
  )
  .map((parts) => parts.join(''));

describe('sanitizeRichText, property', () => {
  it(`never outputs an executable construct, for ${PROPERTY_RUNS} arbitrary mixes of HTML fragments`, () => {
    fc.assert(
      fc.property(htmlMix, (html) => {
        const clean = sanitizeRichText(html);
        checked++;
        const found = executableConstructs(clean);
        if (found.length) unsafe++;
        return found.length === 0;
      }),
      { numRuns: PROPERTY_RUNS },
    );
  }, 120_000);
});

describe('hostile content on the public pages', () => {
  it('renders every payload, in every field a public page or feed shows, without an executable construct', async () => {
    const { pageExecutableConstructs } = await import('./pageCheck');
    const admin = asAdmin();
    const created = await call(t.app, 'POST', '/api/services', {
      ...admin,
      body: { name: 'XSS public', slug: 'xss-public', description: XSS_CORPUS.join('\n'), serviceOwner: XSS_CORPUS[0], subscriptionModel: XSS_CORPUS[1] },
    });
    const service = created.json().service;
    const category = (await call(t.app, 'POST', '/api/categories', { ...as(), body: { serviceId: service.id, name: XSS_CORPUS[2]!.slice(0, 200) } })).json()
      .category;
    const snapshot = async (label: string) =>
      expect(
        (
          await call(t.app, 'POST', '/api/snapshots', {
            ...as(),
            body: { serviceId: service.id, label, visibility: 'public', note: XSS_CORPUS.join(' ').slice(0, 1000) },
          })
        ).statusCode,
      ).toBe(201);
    const ids: string[] = [];
    for (const [i, payload] of XSS_CORPUS.entries()) {
      const aspect = await call(t.app, 'POST', '/api/aspects', {
        ...as(),
        body: { serviceId: service.id, categoryId: category.id, title: `${i} ${payload}`.slice(0, 200), description: payload, isPublic: true },
      });
      ids.push(aspect.json().aspect.id);
      await call(t.app, 'POST', '/api/availabilities', {
        ...as(),
        body: { aspectId: aspect.json().aspect.id, timeBucket: service.timeline[0], value: payload },
      });
    }
    await snapshot(XSS_CORPUS[3]!.slice(0, 200));
    // A second edition changes every cell, so the changes list shows old and new hostile values.
    for (const [i, id] of ids.entries()) {
      await call(t.app, 'POST', '/api/availabilities', {
        ...as(),
        body: { aspectId: id, timeBucket: service.timeline[0], value: XSS_CORPUS[(i + 1) % XSS_CORPUS.length] },
      });
    }
    await snapshot(XSS_CORPUS[4]!.slice(0, 200));
    expect((await call(t.app, 'PATCH', `/api/services/${service.id}/publish`, admin)).statusCode).toBe(200);
    const base = `/p/${world.tenant.slug}`;
    const page = await t.app.inject({ method: 'GET', url: `${base}/xss-public` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('What changed since the previous edition');
    // The check is not blind: one hostile construct slipped into the page is found.
    for (const slipped of ['<img src=x onerror=alert(1)>', '<script>x</script>', '<a href="java&#x09;script:x">x</a>', '<p style="x">x</p>', '<svg></svg>']) {
      expect(pageExecutableConstructs(page.body.replace('</main>', `${slipped}</main>`)), slipped).not.toEqual([]);
    }
    const older = /href="([^"]+\/editions\/[^"]+)"/.exec(page.body)![1]!;
    for (const url of [`${base}/xss-public`, older, base]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      checked++;
      const found = pageExecutableConstructs(res.body);
      if (found.length) unsafe++;
      expect(found, url).toEqual([]);
    }
    for (const url of [`${base}/xss-public/feed.atom`, `${base}/feed.atom`]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      // Every text in a feed is escaped: markup appears only as the feed's own elements.
      const tags = new Set([...res.body.matchAll(/<\/?([a-zA-Z][\w:-]*)/g)].map((m) => m[1]));
      expect([...tags].sort()).toEqual(['author', 'content', 'entry', 'feed', 'id', 'link', 'name', 'published', 'summary', 'title', 'updated'].sort());
    }
  });
});
