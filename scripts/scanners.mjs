// sqlmap and wapiti for scripts/scan.mjs: how each is run, what its output means, and the request
// log of the server they scan.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

/** The version line of a tool, or null when it is not installed. */
export function toolVersion(command) {
  const res = spawnSync(command, ['--version'], { encoding: 'utf8', env: { ...process.env, TERM: 'dumb' } });
  if (res.error || res.status !== 0) return null;
  const text = `${res.stdout}\n${res.stderr}`;
  return (command === 'sqlmap' ? text.match(/^\d+\.\d+[^\s]*/m) : text.match(/Wapiti[- ]\d+\.\d+\.\d+/))?.[0] ?? 'unknown version';
}

/** Runs a tool to its end (or kills it at timeoutMs); `mark` times the output lines that match it. */
function runTool(command, args, { timeoutMs, mark }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, TERM: 'dumb' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let line = '';
    const marks = [];
    child.stdout.on('data', (d) => {
      output += d;
      if (!mark) return;
      const lines = (line + d).split('\n');
      line = lines.pop() ?? '';
      for (const l of lines) for (const m of l.matchAll(mark)) marks.push({ at: Date.now(), match: m[1] });
    });
    child.stderr.on('data', (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut, marks });
    });
  });
}

/** sqlmap's settings for every target: bounded so that the whole scan fits in CI. */
export const SQLMAP_SETTINGS = { level: 3, risk: 2, technique: 'BEUSTQ', dbms: 'PostgreSQL' };

/**
 * Runs sqlmap on one target. `url`, `data` and `headers` carry a `*` after each value to inject
 * (sqlmap's custom injection marker); `params` lists them ({name, id: sqlmap's name}). Every request carries
 * `X-Request-Id: <requestId>`, so the server's log tells this target's requests and statuses apart.
 */
export async function runSqlmap(target, { outputDir, requestId, timeoutMs = 240_000 }) {
  mkdirSync(outputDir, { recursive: true });
  const headers = [...target.headers, `X-Request-Id: ${requestId}`];
  if (target.data) headers.push('Content-Type: application/json');
  const args = [
    '-u',
    target.url,
    '--batch',
    '--level',
    String(SQLMAP_SETTINGS.level),
    '--risk',
    String(SQLMAP_SETTINGS.risk),
    '--technique',
    SQLMAP_SETTINGS.technique,
    '--dbms',
    SQLMAP_SETTINGS.dbms,
    '--timeout',
    '10',
    '--retries',
    '1',
    '--flush-session',
    '--disable-coloring',
    '--output-dir',
    outputDir,
    '--headers',
    headers.join('\n'),
  ];
  if (target.method !== 'GET') args.push('--method', target.method);
  if (target.data) args.push('--data', JSON.stringify(target.data));
  // User-Agent and Referer (tested from level 3) are never read by the server.
  args.push('--skip', 'User-Agent,Referer');
  // sqlmap stops at the first 401 unless told that the target answers it on purpose (sign-in).
  if (target.expect401) args.push('--ignore-code', '401');
  const started = Date.now();
  const res = await runTool('sqlmap', args, { timeoutMs });
  return { ...parseSqlmap(res.output, target, outputDir), exitCode: res.code, timedOut: res.timedOut, ms: Date.now() - started, output: res.output };
}

/**
 * What one sqlmap run tried and concluded, per parameter (sqlmap's names: `#1*` for the first marker
 * in the URL, `JSON #1*` in the body, `X-Tenant-Slug #1*` in a header).
 */
export function parseSqlmap(output, target, outputDir) {
  // Counted, not named: with markers in both the URL and a JSON body, sqlmap 1.7 calls the URL's
  // marker by the body's first name (`JSON #1*`) too.
  const tested = [...output.matchAll(/testing for SQL injection on (?:\(custom\) )?(?:\w+ )?parameter '([^']+)'/g)].map((m) => m[1]);
  const notInjectable = [...output.matchAll(/parameter '([^']+)' does not seem to be injectable/g)].map((m) => m[1]);
  const techniques = new Set([...output.matchAll(/\[INFO\] testing '([^']+)'/g)].map((m) => m[1]));
  // sqlmap lists each injection point in its results CSV (Target URL,Place,Parameter,Technique(s),Note(s)).
  // A point its own second check disproved carries the note "false positive or unexploitable".
  const injectable = new Set();
  const disproved = new Set();
  const foundTechniques = new Set();
  let injectionLog = '';
  if (existsSync(outputDir)) {
    for (const name of readdirSync(outputDir)) {
      if (name.startsWith('results-') && name.endsWith('.csv')) {
        for (const row of readFileSync(join(outputDir, name), 'utf8')
          .split('\n')
          .slice(1)
          .filter((l) => l.trim())) {
          const cells = row.split(',');
          const note = cells.at(-1) ?? '';
          const param = cells.at(-3) ?? row;
          (note.includes('false positive') ? disproved : injectable).add(param);
          if (!note.includes('false positive')) for (const letter of cells.at(-2) ?? '') foundTechniques.add(letter);
        }
      }
      const log = join(outputDir, name, 'log');
      if (existsSync(log)) injectionLog += readFileSync(log, 'utf8');
    }
  }
  // The log holds only confirmed injection points; so does this line of the output.
  if (injectionLog.trim() || /sqlmap identified the following injection point/.test(output)) {
    if (!injectable.size) injectable.add('(see the log)');
  }
  const errors = [...output.matchAll(/\[(CRITICAL|ERROR)\] (.*)/g)]
    .map((m) => m[2])
    // sqlmap ends a target where nothing is injectable with this line, at level ERROR.
    .filter((line) => !line.startsWith('all tested parameters do not appear to be injectable'));
  const label = (id) => target.params.find((p) => p.id === id)?.name ?? id;
  return {
    tested,
    concluded: [...notInjectable, ...injectable],
    injectable: [...injectable].map(label),
    disproved: [...disproved].map(label),
    /** sqlmap's letters for what worked: B boolean, E error, U union, S stacked, T time, Q inline. */
    foundTechniques: [...foundTechniques].sort().join(''),
    injectionLog: injectionLog.trim(),
    techniques: [...techniques],
    errors,
  };
}

/**
 * The modules run. Left out: brute_login_form and csrf (HTML forms only; the app's forms are drawn
 * in the browser and send JSON with a bearer token), buster (a word-list search for hidden paths;
 * every path that is not a file answers the app's page), nikto and wapp (their databases come from
 * the internet).
 */
export const WAPITI_MODULES = [
  'backup',
  'blindsql',
  'cookieflags',
  'crlf',
  'csp',
  'exec',
  'file',
  'htaccess',
  'http_headers',
  'methods',
  'permanentxss',
  'redirect',
  'shellshock',
  'sql',
  'ssrf',
  'xss',
  'xxe',
];

/**
 * A stand-in for wapiti's out-of-band endpoint (by default a server on the internet): the ssrf and
 * xxe payloads, and the remote-inclusion payloads of other modules, point the scanned server here.
 * Any request other than wapiti's own polling means the server fetched an address from its input.
 */
export async function startOutOfBandEndpoint() {
  const hits = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://endpoint.invalid');
    if (url.pathname === '/get_ssrf.php' || url.pathname === '/get_xxe.php') {
      const id = url.searchParams.get('id');
      const kind = url.pathname === '/get_ssrf.php' ? 'ssrf' : 'xoxo';
      const report = {};
      for (const hit of hits) {
        const [, hitKind, session, pathId, hexParam] = hit.url.split('/');
        if (hitKind !== kind || session !== id || !pathId || !hexParam) continue;
        ((report[pathId] ??= {})[hexParam] ??= []).push({ url: hit.url, date: hit.date, ip: hit.ip, method: hit.method, size: 0, payload: 'unknown' });
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(report));
      return;
    }
    hits.push({ url: url.pathname + url.search, method: req.method, date: new Date().toISOString(), ip: req.socket.remoteAddress });
    res.end('');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, hits, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Runs wapiti against `base` and the given start URLs with the given headers; answers its JSON report. */
export async function runWapiti({
  base,
  startUrls,
  headers,
  workDir,
  endpoint,
  modules = WAPITI_MODULES,
  maxScanSeconds = 30,
  maxAttackSeconds = 90,
  timeoutMs = 300_000,
}) {
  const configDir = join(workDir, 'config');
  mkdirSync(configDir, { recursive: true });
  // wapiti loads its technology database at start and downloads it when missing; an empty one
  // keeps the scan offline (the wapp module, which would use it, is not run).
  writeFileSync(join(configDir, 'apps.json'), '{}');
  const report = join(workDir, 'report.json');
  const args = [
    '-u',
    base,
    // Exactly the start URLs: the web app's screens are drawn in the browser, so the page the
    // server sends links only the build's static files.
    '--scope',
    'url',
    ...startUrls.flatMap((u) => ['-s', u]),
    ...headers.flatMap((h) => ['-H', h]),
    '-m',
    modules.join(','),
    '-l',
    '2',
    '-t',
    '5',
    '--max-scan-time',
    String(maxScanSeconds),
    '--max-attack-time',
    String(maxAttackSeconds),
    '--endpoint',
    endpoint,
    '--flush-session',
    '--store-session',
    join(workDir, 'session'),
    '--store-config',
    configDir,
    '--no-bugreport',
    '-v',
    '1',
    '-f',
    'json',
    '-o',
    report,
  ];
  const started = Date.now();
  const res = await runTool('wapiti', args, { timeoutMs, mark: /\[\*\] Launching module (\w+)/g });
  let parsed = null;
  try {
    parsed = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    // reported below as a failed run
  }
  const modulesLaunched = [...res.output.matchAll(/\[\*\] Launching module (\w+)/g)].map((m) => m[1]);
  // When each module started, so that the server's log tells what each one sent.
  const moduleStarts = res.marks.map((m) => ({ module: m.match, at: m.at }));
  const urlsFound = Number(res.output.match(/Wapiti found (\d+) URLs and forms/)?.[1] ?? 0);
  const cutShort = [...res.output.matchAll(/Max attack time was reached for module (\w+)/g)].map((m) => m[1]);
  const crawlCutShort = /Max scan time was reached/.test(res.output);
  const flatten = (section) =>
    Object.entries(section ?? {}).flatMap(([category, entries]) =>
      entries.map((e) => ({ category, info: e.info, method: e.method, path: e.path, parameter: e.parameter })),
    );
  return {
    exitCode: res.code,
    timedOut: res.timedOut,
    ms: Date.now() - started,
    output: res.output,
    report: parsed,
    modulesLaunched,
    moduleStarts,
    cutShort,
    crawlCutShort,
    urlsFound,
    vulnerabilities: parsed ? flatten(parsed.vulnerabilities) : [],
    anomalies: parsed ? flatten(parsed.anomalies) : [],
    crashes: [...res.output.matchAll(/^Traceback[\s\S]*?^\w+Error.*$/gm)].map((m) => m[0]),
  };
}

/**
 * The control: a deliberately injectable endpoint on loopback (an in-memory PostgreSQL, PGlite,
 * queried with the `id` parameter pasted into the SQL), answering errors with the database's
 * message. Both tools must report it, or the scan could not have seen an injection in the product.
 */
export async function startControlTarget() {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = new PGlite();
  await db.exec("create table items (id integer primary key, name text); insert into items values (1, 'one'), (2, 'two')");
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://control.invalid');
    res.setHeader('Content-Type', 'text/html');
    if (url.pathname !== '/items') {
      res.end('<a href="/items?id=1">items</a>');
      return;
    }
    try {
      const { rows } = await db.query(`select name from items where id = ${url.searchParams.get('id')}`);
      res.end(`<ul>${rows.map((r) => `<li>${r.name}</li>`).join('')}</ul>`);
    } catch (err) {
      res.statusCode = 500;
      res.end(`PostgreSQL ERROR: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await db.close();
    },
  };
}

/**
 * The server's request log (pino JSON at info): every completed request with its request id and
 * status, paired with its method and URL.
 */
export function parseRequestLog(text) {
  const open = new Map();
  const requests = [];
  const errors = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.msg === 'incoming request' && entry.req) {
      const queue = open.get(entry.reqId) ?? [];
      queue.push(entry.req);
      open.set(entry.reqId, queue);
    } else if (entry.msg === 'request completed' && entry.res) {
      const req = open.get(entry.reqId)?.shift();
      requests.push({ id: entry.reqId, status: entry.res.statusCode, method: req?.method, url: req?.url, time: entry.time });
    } else if (entry.level >= 50) {
      errors.push(entry);
    }
  }
  return { requests, errors };
}

/** Status counts, e.g. {"200": 120, "400": 300}. */
export function statusCounts(requests) {
  const counts = {};
  for (const r of requests) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}
