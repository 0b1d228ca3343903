// Suite 13 of docs/security.md: sqlmap and wapiti against the real server on loopback, signed in.
//
// Starts the server on a fresh embedded database (or a fresh PostgreSQL database next to
// TEST_DATABASE_URL), seeds a tenant through the API, signs in, runs sqlmap on the API's inputs
// (path, query, JSON body, a header) and wapiti on the web app and the API's query parameters,
// then checks from the server's request log that the scanned endpoints answered (not 401 or 429)
// while they were scanned. Prints a [figure] line and exits non-zero on any finding or failed run.
//
// SCAN_PORT picks the port (default: a free one), SCAN_JOBS the sqlmap runs side by side (3),
// SCAN_KEEP=1 keeps the tools' output of a failed scan.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';
import { freePort } from './freePort.mjs';
import { buildWeb, root, webBuildIsStale } from './webBuild.mjs';
import {
  SQLMAP_SETTINGS,
  WAPITI_MODULES,
  parseRequestLog,
  runSqlmap,
  runWapiti,
  startControlTarget,
  startOutOfBandEndpoint,
  statusCounts,
  toolVersion,
} from './scanners.mjs';

process.chdir(root);
register();
const { ApiClient, createPostgresDatabase, startServer, stopServer } = await import('../server/test/reliability/server.ts');
const { recordFigure } = await import('../server/test/security/figures.ts');

/**
 * What wapiti reports that is not a weakness of the product: each with the reason (also in
 * docs/security.md) and a check, run against the server, that the reason holds for this report.
 * Anything else wapiti reports, or a report whose check fails, fails the scan.
 */
const EXPLAINED = [
  {
    category: 'HTTP Secure Headers',
    info: /^X-XSS-Protection is not set$/,
    why: 'the server sends "X-XSS-Protection: 0" on purpose (the legacy XSS filter of old browsers could itself be abused; the Content-Security-Policy blocks inline script); wapiti 3.0.4 accepts only a value containing "1"',
    holds: async () => (await fetch(`${base}/`)).headers.get('x-xss-protection') === '0',
  },
  {
    category: 'HTTP Secure Headers',
    info: /^Strict-Transport-Security is not set$/,
    why: 'the scan runs over plain HTTP, where browsers ignore the header; with an https:// PUBLIC_URL the server sends it',
    holds: async () => base.startsWith('http://'),
  },
  {
    category: 'Backup file',
    info: /^Backup file \S+~ found for \S+$/,
    why: 'the path is a screen or a build file of the web app with "~" appended; the server answers every path that is not a file, does not end in a file extension and is not under /api with the web app\'s index.html (the same bytes as /login), so nothing is disclosed',
    holds: async (v) => (await text(v.path)) === (await text('/login')),
  },
];

async function text(path) {
  const res = await fetch(base + path);
  return `${res.status} ${res.headers.get('content-type')}\n${await res.text()}`;
}

const versions = { sqlmap: toolVersion('sqlmap'), wapiti: toolVersion('wapiti') };
const missing = Object.entries(versions)
  .filter(([, v]) => !v)
  .map(([k]) => k);
if (missing.length) {
  console.error(
    `\nThe scanner suite needs ${missing.join(' and ')}, which ${missing.length > 1 ? 'are' : 'is'} not installed.\n` +
      'Install them (Debian packages): sudo apt-get install -y sqlmap wapiti\n' +
      'or set SKIP_SCAN=1 to leave the scan out of npm test.\n',
  );
  process.exit(1);
}
console.log(`sqlmap ${versions.sqlmap}, ${versions.wapiti}`);

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'catalog-scan-'));
const port = Number(process.env.SCAN_PORT) || (await freePort());
const jobs = Math.max(1, Number(process.env.SCAN_JOBS) || 3);
const pgBase = process.env.TEST_DATABASE_URL;
const pg = pgBase ? await createPostgresDatabase(pgBase, 'scan') : null;
const base = `http://127.0.0.1:${port}`;

// npm test has just built dist/web; on its own the scan keeps a build of its own.
let webRoot = join(root, 'dist', 'web');
if (webBuildIsStale()) {
  webRoot = join(root, 'dist', 'web-scan');
  if (webBuildIsStale(webRoot)) buildWeb(webRoot);
}

let server = null;
let exitCode = 1;
try {
  server = await startServer({
    port,
    dataDir: join(work, 'data'),
    databaseUrl: pg?.url,
    env: {
      LOG_LEVEL: 'info',
      WEB_ROOT: webRoot,
      // A scanner sends thousands of requests a minute from one address and one account, failed
      // sign-ins included: the default limits (docs/security.md, suite 7) would answer 429 and the
      // scan would test the limiter only. This server raises the API limit and turns sign-in
      // throttling off; the scan checks it met no 429.
      API_RATE_LIMIT: '1000000',
      LOGIN_THROTTLE: 'false',
    },
  });
  exitCode = await scan(server);
} catch (err) {
  console.error(err);
} finally {
  if (server) await stopServer(server);
  await pg?.drop();
  if (exitCode !== 0 && process.env.SCAN_KEEP) console.log(`Scan files kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
process.exit(exitCode);

async function scan(server) {
  const seed = await seedTenant();
  const targets = sqlmapTargets(seed);

  // Before: each target's request as sent unchanged answers 2xx.
  const before = await probe(targets);
  const probeFailures = before.filter((p) => p.status < 200 || p.status > 299);
  if (probeFailures.length) {
    for (const p of probeFailures) console.error(`  ${p.name}: ${p.status} before the scan`);
    throw new Error('The scanned requests do not answer 2xx before the scan: the scan would test nothing.');
  }

  // The control runs alongside the scan of the product: a deliberately injectable endpoint that
  // both tools must report with the same settings.
  const controlRun = runControl().catch((err) => {
    console.error('The control could not run:', err);
    return { sqlmap: 'NOT FOUND', wapiti: 'NOT FOUND' };
  });

  console.log(`\n== sqlmap: ${targets.length} endpoints, ${targets.reduce((n, t) => n + t.params.length, 0)} parameters, ${jobs} at a time`);
  const sqlmapStarted = Date.now();
  const results = await inPhases(targets, async (t) => {
    const r = await runSqlmap(t, { outputDir: join(work, 'sqlmap', t.id), requestId: `scan-sqlmap-${t.id}` });
    writeFileSync(join(work, 'sqlmap', `${t.id}.txt`), r.output);
    const verdict = r.injectable.length ? `INJECTABLE: ${r.injectable.join(', ')}` : `${r.concluded.length} of ${t.params.length} not injectable`;
    console.log(`  ${t.name.padEnd(64)} ${verdict} (${(r.ms / 1000).toFixed(1)} s)`);
    return { target: t, ...r };
  });
  const controls = await controlRun;
  const sqlmapMs = Date.now() - sqlmapStarted;

  console.log(`\n== wapiti: ${WAPITI_MODULES.length} modules`);
  const endpoint = await startOutOfBandEndpoint();
  const wapitiStarted = Date.now();
  const wapiti = await runWapiti({
    base: `${base}/`,
    startUrls: await wapitiStartUrls(seed),
    headers: [`Authorization: Bearer ${seed.superToken}`, `X-Tenant-Slug: ${seed.slug}`, 'X-Request-Id: scan-wapiti'],
    workDir: join(work, 'wapiti'),
    endpoint: endpoint.url,
  });
  await endpoint.close();
  writeFileSync(join(work, 'wapiti-output.txt'), wapiti.output);
  const wapitiMs = Date.now() - wapitiStarted;

  // After: the sessions still work, so the scan did not end up testing a signed-out server.
  const after = await probe(targets);

  const log = parseRequestLog(server.output());
  return report({ controls, targets, results, wapiti, endpoint, log, after, sqlmapMs, wapitiMs });
}

async function report({ controls, targets, results, wapiti, endpoint, log, after, sqlmapMs, wapitiMs }) {
  const findings = [];
  const failures = [];
  for (const [tool, outcome] of Object.entries(controls)) {
    if (outcome === 'NOT FOUND') failures.push(`${tool} did not report the control's injection: it could not have seen one in the product`);
  }

  // sqlmap: every parameter tested and concluded; what it found; what the server answered.
  const sqlmapRequests = log.requests.filter((r) => r.id?.startsWith('scan-sqlmap-'));
  const techniques = new Set();
  const endpoints = [];
  for (const r of results) {
    const t = r.target;
    r.techniques.forEach((x) => techniques.add(x));
    const requests = sqlmapRequests.filter((q) => q.id === `scan-sqlmap-${t.id}`);
    const statuses = statusCounts(requests);
    endpoints.push({
      endpoint: t.name,
      params: t.params.map((p) => p.name),
      requests: requests.length,
      statuses,
      injectable: r.injectable,
      disprovedBySqlmap: r.disproved,
      seconds: Math.round(r.ms / 100) / 10,
    });
    for (const p of r.injectable) findings.push(`sqlmap: ${t.name}: ${p} is injectable\n${r.injectionLog}`);
    if (r.timedOut) failures.push(`sqlmap did not finish on ${t.name}`);
    else if (r.exitCode !== 0) failures.push(`sqlmap exited with ${r.exitCode} on ${t.name}`);
    if (r.tested.length !== t.params.length || r.concluded.length !== t.params.length) {
      failures.push(`sqlmap on ${t.name} tested ${r.tested.length} and concluded on ${r.concluded.length} of its ${t.params.length} parameters`);
    }
    for (const e of r.errors) failures.push(`sqlmap on ${t.name}: ${e}`);
    // sqlmap sends the unchanged request several times (connection, stability, comparisons).
    const ok = requests.filter((q) => q.status >= 200 && q.status < 300).length;
    if (ok < 2) failures.push(`${t.name} answered 2xx to ${ok} of sqlmap's ${requests.length} requests: the scan did not reach it`);
    // Sign-in answers 401 to every wrong password, which is most of what sqlmap sends it.
    const refused = (t.expect401 ? 0 : (statuses[401] ?? 0)) + (statuses[429] ?? 0);
    if (refused) failures.push(`${t.name} answered 401 or 429 to ${refused} of sqlmap's requests`);
  }

  // wapiti: its findings, anomalies and crashes, and requests the server made to the endpoint.
  const wapitiRequests = log.requests.filter((r) => r.id === 'scan-wapiti');
  const wapitiStatuses = statusCounts(wapitiRequests);
  const perModule = { crawl: 0 };
  for (const q of wapitiRequests) {
    const module = wapiti.moduleStarts.findLast((m) => m.at <= q.time)?.module ?? 'crawl';
    perModule[module] = (perModule[module] ?? 0) + 1;
  }
  const explained = [];
  const wapitiFindings = [];
  for (const v of wapiti.vulnerabilities) {
    const where = `${v.method} ${v.path}${v.parameter ? ` parameter ${v.parameter}` : ''}`;
    const known = EXPLAINED.find((e) => e.category === v.category && e.info.test(v.info));
    if (known && (await known.holds(v))) explained.push({ category: v.category, info: v.info, where, why: known.why });
    else wapitiFindings.push(`wapiti: ${v.category}: ${v.info} (${where})`);
  }
  for (const a of wapiti.anomalies) wapitiFindings.push(`wapiti anomaly: ${a.category}: ${a.info} (${a.method} ${a.path})`);
  for (const hit of endpoint.hits) wapitiFindings.push(`the server requested wapiti's out-of-band endpoint: ${hit.method} ${hit.url}`);
  findings.push(...wapitiFindings);
  if (wapiti.timedOut) failures.push('wapiti did not finish in time');
  else if (wapiti.exitCode !== 0) failures.push(`wapiti exited with ${wapiti.exitCode}`);
  if (!wapiti.report) failures.push('wapiti wrote no report');
  for (const c of wapiti.crashes) failures.push(`wapiti crashed:\n${c}`);
  const notLaunched = WAPITI_MODULES.filter((m) => !wapiti.modulesLaunched.includes(m));
  if (notLaunched.length) failures.push(`wapiti did not launch ${notLaunched.join(', ')}`);
  if (wapiti.cutShort.length) failures.push(`wapiti stopped ${wapiti.cutShort.join(', ')} at its time limit`);
  if (wapiti.crawlCutShort) failures.push('wapiti stopped crawling at its time limit');
  const scannedApi = new Set(wapitiRequests.filter((q) => q.status === 200 && q.url?.startsWith('/api/')).map((q) => q.url.split('?')[0]));
  if (scannedApi.size < 10) failures.push(`wapiti got a 200 from ${scannedApi.size} API paths: the scan did not reach the API`);
  if (wapitiStatuses[401] || wapitiStatuses[429]) failures.push(`wapiti met ${wapitiStatuses[401] ?? 0} 401 and ${wapitiStatuses[429] ?? 0} 429 answers`);

  // Both: no request made the server fail, and the sessions still work.
  const all = [...sqlmapRequests, ...wapitiRequests];
  const serverErrors = all.filter((q) => q.status >= 500);
  for (const r of serverErrors) findings.push(`server error ${r.status}: ${r.method} ${r.url}`);
  for (const e of log.errors) findings.push(`the server logged an error: ${e.msg ?? ''} ${e.err?.message ?? ''}`.trim());
  for (const p of after.filter((q) => q.status < 200 || q.status > 299)) failures.push(`${p.name} answered ${p.status} after the scan`);

  const paramCount = targets.reduce((n, t) => n + t.params.length, 0);
  const injectableCount = results.reduce((n, r) => n + r.injectable.length, 0);
  const disprovedCount = results.reduce((n, r) => n + r.disproved.length, 0);
  const rateLimited = all.filter((q) => q.status === 429).length;
  const summary =
    `sqlmap ${injectableCount} injectable of ${paramCount} parameters on ${targets.length} endpoints ` +
    `(${sqlmapRequests.length} requests, ${techniques.size} techniques, level ${SQLMAP_SETTINGS.level} risk ${SQLMAP_SETTINGS.risk}` +
    `${disprovedCount ? `; ${disprovedCount} candidates disproved by sqlmap's own re-check` : ''}); ` +
    `wapiti ${wapitiFindings.length} findings in ${wapiti.modulesLaunched.length} modules ` +
    `(${wapitiRequests.length} requests; ${explained.length} reports explained as not applicable); ` +
    `${serverErrors.length} server errors, ${rateLimited} rate-limited`;

  console.log('\nsqlmap, per endpoint:');
  for (const e of endpoints) console.log(`  ${e.endpoint.padEnd(64)} ${String(e.requests).padStart(5)} requests ${JSON.stringify(e.statuses)}`);
  console.log(`\nwapiti: ${wapiti.urlsFound} URLs crawled, ${scannedApi.size} API paths answered 200; answers ${JSON.stringify(wapitiStatuses)}`);
  console.log(`  requests per module: ${JSON.stringify(perModule)}`);
  for (const e of explained) console.log(`  explained: ${e.info} (${e.where}): ${e.why}`);
  if (findings.length) console.log(`\nFINDINGS:\n${findings.map((f) => `  - ${f}`).join('\n')}`);
  if (failures.length) console.log(`\nTHE SCAN DID NOT RUN PROPERLY:\n${failures.map((f) => `  - ${f}`).join('\n')}`);

  recordFigure('scanners', summary, {
    tools: versions,
    controls,
    seconds: Math.round((Date.now() - started) / 1000),
    sqlmap: {
      settings: SQLMAP_SETTINGS,
      seconds: Math.round(sqlmapMs / 1000),
      requests: sqlmapRequests.length,
      statuses: statusCounts(sqlmapRequests),
      techniques: [...techniques].sort(),
      endpoints,
    },
    wapiti: {
      modules: wapiti.modulesLaunched,
      seconds: Math.round(wapitiMs / 1000),
      urlsCrawled: wapiti.urlsFound,
      requestsPerModule: perModule,
      apiPathsAnswered200: scannedApi.size,
      requests: wapitiRequests.length,
      statuses: wapitiStatuses,
      explained,
      outOfBandHits: endpoint.hits.length,
    },
    findings,
    failures,
  });
  return findings.length || failures.length ? 1 : 0;
}

/** Runs both tools on the control endpoint; answers what each reported. */
async function runControl() {
  const control = await startControlTarget();
  try {
    const [sqlmap, wapiti] = await Promise.all([
      runSqlmap(
        { name: 'control', method: 'GET', url: `${control.base}/items?id=1*`, params: [{ name: 'id', id: '#1*' }], headers: [] },
        { outputDir: join(work, 'control', 'sqlmap'), requestId: 'scan-control' },
      ),
      runWapiti({
        base: `${control.base}/`,
        startUrls: [`${control.base}/items?id=1`],
        headers: [],
        workDir: join(work, 'control', 'wapiti'),
        endpoint: `${control.base}/`,
        modules: ['sql'],
      }),
    ]);
    const controls = {
      sqlmap: sqlmap.injectable.length ? `injectable (${sqlmap.foundTechniques})` : 'NOT FOUND',
      wapiti: wapiti.vulnerabilities.some((v) => v.category === 'SQL Injection') ? 'SQL Injection reported' : 'NOT FOUND',
    };
    console.log(`  the control (deliberately injectable): sqlmap ${controls.sqlmap} in ${(sqlmap.ms / 1000).toFixed(1)} s; wapiti ${controls.wapiti}`);
    return controls;
  } finally {
    await control.close();
  }
}

/** A tenant with an admin, two services, categories, aspects and availabilities, made through the API. */
async function seedTenant() {
  const slug = 'scan-org';
  const password = 'scan-admin-password-0123';
  const email = 'scan-admin@example.com';
  const superAdmin = new ApiClient(base);
  await superAdmin.signIn();
  const must = async (client, method, path, body, status = [200, 201]) => {
    const res = await client.request(method, path, body, { 'x-tenant-slug': slug });
    if (!status.includes(res.status)) throw new Error(`seeding: ${method} ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const { tenant } = await must(superAdmin, 'POST', '/api/tenants', { name: 'Scan Organisation', slug });
  await must(superAdmin, 'POST', '/api/users', { email, name: 'Scan Admin', role: 'admin', password });
  const admin = new ApiClient(base);
  await admin.signIn(email, password);

  const service = async (name, slugOf) => {
    const { service: s } = await must(admin, 'POST', '/api/services', {
      name,
      slug: slugOf,
      description: `<p>${name}: what it offers.</p>`,
      serviceOwner: 'Service desk',
      subscriptionModel: 'Per user and month',
    });
    const categories = [];
    const aspects = [];
    for (const categoryName of ['Access', 'Reporting']) {
      const { category } = await must(admin, 'POST', '/api/categories', { serviceId: s.id, name: categoryName });
      categories.push(category);
      for (const [i, title] of ['Single sign-on', 'Audit export'].entries()) {
        const { aspect } = await must(admin, 'POST', '/api/aspects', {
          serviceId: s.id,
          categoryId: category.id,
          title: `${title} (${categoryName})`,
          description: '<p>Available to <strong>every</strong> team.</p>',
          isPublic: i === 0,
        });
        aspects.push(aspect);
        await must(admin, 'POST', '/api/availabilities', { aspectId: aspect.id, timeBucket: s.timeline[1], value: 'Available' });
      }
    }
    return { ...s, categories, aspects };
  };
  // Reads are scanned on the first service, writes on the second, so that one target's writes
  // never change what another target reads while sqlmap compares its answers.
  const read = await service('Payroll', 'payroll');
  const write = await service('Expenses', 'expenses');
  const audit = await must(admin, 'GET', '/api/audit?limit=5');
  const platformAudit = await must(superAdmin, 'GET', `/api/admin/audit?tenantId=${tenant.id}&limit=5`);
  return {
    slug,
    tenantId: tenant.id,
    email,
    password,
    adminToken: admin.token,
    superToken: superAdmin.token,
    read,
    write,
    auditBefore: audit.entries[0].id,
    platformAuditBefore: platformAudit.entries[0].id,
  };
}

/**
 * The requests sqlmap works on. A `*` follows each injected value (URL, JSON body, header); the
 * URL's markers are named in order. Reads run first, side by side, then writes, each on records no
 * other target reads; sign-in runs alongside.
 */
function sqlmapTargets(seed) {
  const api = `${base}/api`;
  const admin = [`Authorization: Bearer ${seed.adminToken}`, `X-Tenant-Slug: ${seed.slug}`];
  const superAdmin = [`Authorization: Bearer ${seed.superToken}`, `X-Tenant-Slug: ${seed.slug}`];
  const r = seed.read;
  const w = seed.write;
  // sqlmap names the markers by place and order: `#1*` in the URL, `JSON #1*` in the body,
  // `<header> #1*` in a header.
  const t = (id, phase, name, method, url, urlParams, options = {}) => {
    const headers = options.headers ?? admin;
    const params = [
      ...urlParams.map((n, i) => ({ name: n, id: `#${i + 1}*` })),
      ...Object.entries(options.data ?? {})
        .filter(([, v]) => String(v).endsWith('*'))
        .map(([k], i) => ({ name: k, id: `JSON #${i + 1}*` })),
      ...headers.filter((h) => h.endsWith('*')).map((h) => ({ name: h.split(':')[0], id: `${h.split(':')[0]} #1*` })),
    ];
    if ((url.match(/\*/g) ?? []).length !== urlParams.length) throw new Error(`${name}: one name per URL marker`);
    return { id, phase, name, method, url, params, headers, data: options.data, expect401: options.expect401 ?? false };
  };
  return [
    t('services-list', 'read', 'GET /api/services?includeArchived=', 'GET', `${api}/services?includeArchived=true*`, ['includeArchived']),
    t('service', 'read', 'GET /api/services/:id', 'GET', `${api}/services/${r.id}*`, ['id']),
    t('service-full', 'read', 'GET /api/services/:id/full', 'GET', `${api}/services/${r.id}*/full`, ['id']),
    t('aspects-of-service', 'read', 'GET /api/aspects/service/:id?showPrivate=', 'GET', `${api}/aspects/service/${r.id}*?showPrivate=true*`, [
      'id',
      'showPrivate',
    ]),
    t('aspect-history', 'read', 'GET /api/availabilities/aspect/:id/history', 'GET', `${api}/availabilities/aspect/${r.aspects[0].id}*/history`, ['id']),
    t('csv', 'read', 'GET /api/export/service/:id/csv?showPrivate=', 'GET', `${api}/export/service/${r.id}*/csv?showPrivate=true*`, ['id', 'showPrivate']),
    t('audit', 'read', 'GET /api/audit?before=&limit=', 'GET', `${api}/audit?before=${seed.auditBefore}*&limit=10*`, ['before', 'limit']),
    t('tenant-header', 'read', 'GET /api/services (X-Tenant-Slug header, end of path)', 'GET', `${api}/services*`, ['path'], {
      headers: [`Authorization: Bearer ${seed.adminToken}`, `X-Tenant-Slug: ${seed.slug}*`],
    }),
    t('tenants', 'read', 'GET /api/tenants?includeArchived= (super admin)', 'GET', `${api}/tenants?includeArchived=true*`, ['includeArchived'], {
      headers: superAdmin,
    }),
    t(
      'platform-audit',
      'read',
      'GET /api/admin/audit?tenantId=&before=&limit= (super admin)',
      'GET',
      `${api}/admin/audit?tenantId=${seed.tenantId}*&before=${seed.platformAuditBefore}*&limit=10*`,
      ['tenantId', 'before', 'limit'],
      { headers: superAdmin },
    ),
    t('login', 'alongside', 'POST /api/auth/login {email, password}', 'POST', `${api}/auth/login`, [], {
      headers: [],
      data: { email: `${seed.email}*`, password: `${seed.password}*` },
      expect401: true,
    }),
    t('service-update', 'write', 'PUT /api/services/:id {name, description, serviceOwner, subscriptionModel}', 'PUT', `${api}/services/${w.id}*`, ['id'], {
      data: { name: 'Expenses*', description: '<p>Claims and receipts.</p>*', serviceOwner: 'Finance*', subscriptionModel: 'Included*' },
    }),
    t('aspect-update', 'write', 'PUT /api/aspects/:id {title, description}', 'PUT', `${api}/aspects/${w.aspects[0].id}*`, ['id'], {
      data: { title: 'Single sign-on*', description: '<p>For every team.</p>*' },
    }),
    t('category-create', 'write', 'POST /api/categories {serviceId, name}', 'POST', `${api}/categories`, [], {
      data: { serviceId: `${w.id}*`, name: 'Support*' },
    }),
    t('category-rename', 'write', 'PUT /api/categories/:id {name}', 'PUT', `${api}/categories/${w.categories[0].id}*`, ['id'], { data: { name: 'Access*' } }),
    t('availability', 'write', 'POST /api/availabilities {aspectId, timeBucket, value}', 'POST', `${api}/availabilities`, [], {
      data: { aspectId: `${w.aspects[1].id}*`, timeBucket: `${w.timeline[2]}*`, value: 'Pilot*' },
    }),
    t('tenant-rename', 'write', 'PUT /api/tenants/:id {name} (super admin)', 'PUT', `${api}/tenants/${seed.tenantId}*`, ['id'], {
      headers: superAdmin,
      data: { name: 'Scan Organisation*' },
    }),
  ];
}

/**
 * wapiti's start URLs: the web app's screens and the files its page loads first, and the API's reads
 * with their query parameters.
 */
async function wapitiStartUrls(seed) {
  const r = seed.read;
  const page = await (await fetch(`${base}/`)).text();
  const files = [...page.matchAll(/<(?:script|link) [^>]*(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]);
  return [
    ...new Set(files.filter((f) => !/\/assets\/(?!index-)/.test(f))),
    '/login',
    `/catalog/${r.id}`,
    `/catalog/${r.id}/settings`,
    '/tenant-settings',
    '/super-admin',
    '/api/services?includeArchived=true',
    `/api/services/${r.id}`,
    `/api/services/${r.id}/full`,
    `/api/aspects/service/${r.id}?showPrivate=true`,
    `/api/aspects/${r.aspects[0].id}`,
    `/api/availabilities/service/${r.id}/resolved`,
    `/api/export/service/${r.id}/csv?showPrivate=true`,
    `/api/audit?before=${seed.auditBefore}&limit=10`,
    '/api/tenants?includeArchived=true',
    `/api/admin/audit?tenantId=${seed.tenantId}&before=${seed.platformAuditBefore}&limit=10`,
    '/api/admin/panel-data?includeArchived=true',
    '/api/auth/me',
    '/api/auth/entra/signin',
    '/api/auth/entra/callback?code=scan&state=scan',
    '/api/health',
  ].map((p) => base + p);
}

/** Sends each target's request unchanged (markers removed) once and answers its status. */
async function probe(targets) {
  const out = [];
  for (const t of targets) {
    const headers = Object.fromEntries(
      t.headers.map((h) => {
        const i = h.indexOf(':');
        return [
          h.slice(0, i).trim().toLowerCase(),
          h
            .slice(i + 1)
            .trim()
            .replace(/\*$/, ''),
        ];
      }),
    );
    const init = { method: t.method, headers: { ...headers, 'x-request-id': 'scan-probe' } };
    if (t.data) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(t.data).replaceAll('*"', '"');
    }
    const res = await fetch(t.url.replaceAll('*', ''), init);
    await res.arrayBuffer();
    out.push({ name: t.name, status: res.status });
  }
  return out;
}

/**
 * Runs the read targets `jobs` at a time, then the write targets the same way. Sign-in (slow: every
 * attempt hashes a password) runs alongside both: it changes nothing another target reads.
 */
async function inPhases(targets, fn) {
  const results = [];
  const alongside = Promise.all(targets.filter((t) => t.phase === 'alongside').map(async (t) => results.push(await fn(t))));
  for (const phase of ['read', 'write']) {
    const queue = targets.filter((t) => t.phase === phase);
    const workers = Array.from({ length: Math.min(jobs, queue.length) }, async () => {
      for (let t = queue.shift(); t; t = queue.shift()) results.push(await fn(t));
    });
    await Promise.all(workers);
  }
  await alongside;
  return results;
}
