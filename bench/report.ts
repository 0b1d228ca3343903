/**
 * docs/performance.md from the bench's results. The results of every step are kept in
 * docs/performance.json, so a run of some steps (BENCH_STEPS) refreshes their sections and keeps
 * the others as they were measured; each section says when, where and at which commit.
 */
import { measured, num, perDatabase, table, type BenchResults } from './reportFormat';
import { BROWSER_LIMITS, gridSection, listsSection, publishingSection, streamSection, webhookSection } from './reportSections';
import { targetsSection } from './reportTargets';

export type { BenchResults, DatabaseFigures, Machine } from './reportFormat';

export function renderReport(r: BenchResults): string {
  const lines = [
    '# Performance',
    '',
    'Written by `npm run bench` (bench/run.ts) from the results in docs/performance.json; run it again',
    'to refresh every figure, or `BENCH_STEPS=api,memory,browser,pglite,lists,grid,testdb` (any of the steps) to refresh some',
    'sections and keep the others. Each section says when and where it was measured. The machine is',
    'shared: the load average at the start of each section says how busy it was, and figures measured',
    'on a busy machine are worse than on an idle one, most of all the browser frame times.',
    '',
  ];
  lines.push(...targetsSection(r));

  if (r.api) {
    const m = r.api.machine;
    lines.push(
      '## API',
      '',
      `Each figure is the median of ${m.runs} runs. Throughput is measured with wrk at 10 connections for ${m.seconds} s per run,`,
      'after a round not counted that warms both servers, and compared with a bare `node:http` server',
      'answering the same bytes from memory to the same requests (the bearer token included), with the',
      'same tool, concurrency and encoding, measured in the same run: the ratio is the figure, the absolute',
      'numbers move with the machine. Times are measured by the client over loopback, so they include',
      "the transfer of the body, except those named server time: the server's own time on the call,",
      'from its Server-Timing header.',
      '',
      measured(
        m,
        `; scale ${m.scale}${m.scale === 'small' ? " (BENCH_SCALE=small: a smaller tenant and import, to prove the bench; the issue's figures need the full scale)" : ''}`,
      ),
      '',
    );
    lines.push(...perDatabase(r.api.results));
  }

  if (r.memory) {
    const m = r.memory.machine;
    lines.push(
      '## Memory and event loop under a mixed load',
      '',
      `The real server process (bench/memory.ts) under ${m.seconds} s of mixed reads and writes started at a fixed rate,`,
      'in the bench tenant (200 services, the 600-aspect service) and three smaller tenants. The data',
      'is built through the API on a fresh database, then a new server process starts on it and takes',
      "the load. Every 5 s the bench reads the server's resident memory (RSS, from",
      "/proc/<pid>/status) and the event loop's longest delay since the previous read (GET",
      '/api/metrics: `perf_hooks.monitorEventLoopDelay` at 10 ms resolution, so a delay includes up to',
      '10 ms of the sampling interval; the route exists only with BENCH_METRICS=1 and answers super',
      'admins only). The memory target compares the mean RSS of the first minute with that of the last.',
      `\`BENCH_MEMORY_SECONDS\` sets the duration (default 300).`,
      '',
      measured(m, `; scale ${m.scale}`),
      '',
    );
    lines.push(...perDatabase(r.memory.results));
  }

  if (r.browser) {
    const m = r.browser.machine;
    lines.push(
      '## Browser: the large roadmap in Chromium',
      '',
      'Headless Chromium driven by Playwright (bench/browser.ts) against the real server serving the',
      'production build, signed in through the login page. Every time is taken inside the page',
      "(performance.now, requestAnimationFrame, Resource Timing, the search's own debounce timer), so",
      'the driver\'s delays are not part of it. "Painted" is the end of the first frame that shows the',
      'change. The roadmap and current tables have only the rows near the viewport in the page, in',
      'full; each run of the others is one empty row as tall as they are (web/components/useRowWindow.ts,',
      'decision 0108), so the table keeps its length and counts every row (aria-rowcount). The tables',
      'scroll in their own panel, at most as tall as the window (decision 0106), which the scroll',
      'figures scroll from its top to its end.',
      '',
      measured(m, `; medians of ${m.runs} runs`),
      '',
      ...table(r.browser.figures),
      ...r.browser.notes.map((n) => `- ${n}`),
      '',
    );
  }

  if (r.lists) lines.push(...listsSection(r.lists));
  if (r.stream) lines.push(...streamSection(r.stream));
  if (r.publishing) lines.push(...publishingSection(r.publishing));
  if (r.webhooks) lines.push(...webhookSection(r.webhooks));

  lines.push(
    '## What stands in the way of the targets not met',
    '',
    '- Warm reads (`/full`, `/services`): a warm request runs no SQL statement (decision 0103) and is',
    "  answered from the HTTP server's request event, before the framework's routing and hooks",
    '  (hot reads, decision 0104). What is left per request is the policy checks, the fifteen',
    '  headers every API answer carries (security, request id, cache, Server-Timing) against the bare',
    "  server's two, and the socket write; the smaller the body (gzip: 53 KB), the more they weigh.",
    "  Timed inside a hot read of the gzip body, in µs per request: Node's validation and writing of",
    "  the headers about 2.5 and the socket write about 7, against about 4 for the product's own",
    '  work (session, tenant, access, policies and the request id); the header list itself is built',
    '  once per held body, not per request.',
    "  The second ratio of each warm figure is against a bare server sending the product's own headers.",
    '  Both servers are bound by one core: under wrk at 10 connections, the main thread of each used',
    '  84 to 88% of a core (per-thread CPU from /proc, embedded database, 204730d), and the product',
    "  spent about 44 µs of CPU on a /services request against the bare server's 34. A CPU profile",
    "  of the product during that load put 59% of the main thread's busy time in the socket write",
    "  (writev) and 7% in Node's headers; the product's own functions were each under 3%. Throughput",
    '  ratios from 61 to 108% against the same-headers server were measured for the same code within',
    '  an hour on one machine, the two servers taking turns every 5 s. Measured again at 93f6036 (gzip',
    '  /full, per-thread CPU from /proc, three rounds): the main thread of each server used 92 to 99% of',
    '  a core, each of its other threads under 2%; the product spent 46 to 61 µs of CPU a request against 30 to',
    '  37 for the bare server with the same headers, and strace counted the same system calls for each',
    '  request of both (one read, one writev), so what is left is work in the process, spread over',
    "  Node's HTTP code and the product's own steps, none over about 1 µs a request in a CPU profile.",
    '  (The AsyncLocalStorage that carries the row-level security scope was suspected too: on Node 20 it',
    '  turns on async hooks for the whole process. The product measured with and without it, alternately',
    '  on one database, showed no difference beyond the noise.)',
    '- Availability writes are measured with wrk, as the reads are, after a run that warms the write',
    '  path. Concurrent writes of a tenant are committed in groups (decision 0105): a write that arrives',
    '  while another is under way is sent with the others that came meanwhile, as one statement that',
    '  makes each exactly as it would be alone. Reports before decision 0105 took the figure from a load',
    "  client inside the bench's own process, which took as much CPU as the server on this two-core",
    '  machine, so figures before it are not comparable.',
    '- Machines differ from run to run. The run at cc32a99 had one about half as fast as the later',
    '  ones: the bare server answered the plain /full at 4,520 requests/s against 5,200 to 6,300 since,',
    '  and the availability write p99 (32.9 ms embedded and 26.0 ms PostgreSQL there, 14.6 and 9.9',
    "  ms at 6665e29), the import and the export moved with it; the server's code was the same. The",
    '  same code measured the /services ratio at 83% (embedded) and 67% (PostgreSQL) on 2026-11-22,',
    '  and at 64% and 76% at 6665e29. The run at 93f6036 had a faster machine again (the bare server',
    '  answered the gzip /full at 41,300 requests/s against 33,200 at 6665e29): the write p99 was 8.6',
    '  and 7.4 ms, and the import 5.4 and 3.4 s against 7.9 and 4.4. The write p99 sits near its',
    '  target on the embedded database on a busy machine, which can take it over.',
    '- Cold `/full` after an availability write (decision 0107): the next body is made from the one',
    '  held before the write, reading only the aspect written (one small statement), when this',
    "  process made every version in between; what is left is the access read, joining the aspects'",
    '  JSON, and the first gzip, at the fastest level in the thread pool. Those grow with the body:',
    '  for 6,000 aspects (8 MB of JSON) they took 3 to 11 times as long as for 600 at cc32a99, so the',
    "  scale curve's last step sits near its 10× mark on a busy machine. After any other write (the",
    '  "built whole" figures: an aspect\'s title edited), or another process\'s write, one statement',
    '  builds the whole body; the aspects now come one JSON object each, so that one can be replaced,',
    '  and the whole build measured the same as before that (embedded, 9 builds a probe, four probes',
    '  of each alternately: 600 aspects 50 to 89 ms before and 54 to 60 after, 6,000 aspects 364 to',
    '  476 ms before and 370 to 533 after). Timed inside the route on PostgreSQL at an earlier commit (20 cold reads after a write):',
    "  the caller's access to the service read again after the write 1.1 to 1.3 ms, the statement",
    '  15.5 to 17.6 ms, the body put together 0.8 ms, and the first gzip 3 to 7 ms while the other',
    '  core is busy. On PGlite (WebAssembly) the statement takes about 18 ms of its own CPU; the 600',
    '  availability sub-selects are its larger part (about half: the statement without them took 10',
    '  of 21 ms on PostgreSQL). Building the aspects in JavaScript instead measured slower, and puts 6',
    '  to 17 ms on the event loop; grouping the texts by aspect in one pass measured 2 to 20 times',
    '  slower on PGlite, and planned as a nested loop over every group for each aspect under',
    '  row-level security without statistics, 3.3 s on PostgreSQL right after an import. Driving',
    "  the join from the service's categories (a LATERAL sub-select of each category's aspects, or",
    '  the categories narrowed to the service) took the statement from 28 to 17 ms on PostgreSQL with',
    '  fresh statistics, the same body byte for byte; but the embedded database has none until its',
    '  upkeep gathers them (decision 0143), as right after an import, and under row-level security',
    '  without them it planned both forms as a scan of every category',
    "  for each aspect: 1.0 to 1.5 s for 6,000 aspects against 0.2 s now. Reading each aspect's texts",
    '  from a sorted sub-select instead of an ORDER BY inside the aggregate made no difference.',
    '- Import of 10,000 aspects (decision 0136): the file is read and validated whole in a worker thread',
    "  (0.25 to 0.35 s), which then hands over each step's aspects and texts as it makes them, so the",
    '  first steps are written while it prepares the rest. The steps write into a hidden service and',
    "  skip their rows' foreign-key checks (`session_replication_role`, where the database user may set",
    "  it), which were half of the texts' time (240,000 look-ups and locks of aspects); one statement",
    '  then makes the same checks set by set before the service is shown. The imported ids are',
    "  time-ordered (UUID version 7), so the texts' and history rows' indexes grow at their end. Timed",
    '  in one server with no other request (2026-11-28): 5.5 to 5.9 s embedded and 3.2 to 3.5 s on',
    '  PostgreSQL before, 2.5 to 3.0 s and 1.6 to 1.9 s after. The figure above is measured with a',
    '  health check and a page requested without pause all through the import, and the health check,',
    '  which needs the database, goes between every two steps: on the embedded database that costs',
    "  the import its steps' turns (steps of 2,500 texts keep their number down). What is left is",
    '  the rows themselves: 10,000 aspects, 120,000 texts and their 120,000 history rows, each with',
    '  its indexes; imported texts start their history (docs/decisions/0007-service-portability.md).',
    '  Since then the import thread no longer parses plain rich text to sanitise it (`quickSanitise`,',
    "  docs/security.md): sanitize-html took 1.6 to 2.0 s of its time for the file's 10,000",
    "  descriptions, against 0.1 to 0.45 s now, time the database's work competed for on two cores.",
    '  Eight imports each way on PostgreSQL (two servers of four imports, the two ways taking turns),',
    '  on a slower machine (2 × Intel Xeon, 2026-11-28): 1.6 to 3.2 s before (median 2.48 s), 1.8 to',
    '  2.3 s after (median 1.98 s). On the embedded database, whose work runs in one thread of its',
    '  own, the change was within the noise there (3.7 to 5.0 s either way; the same code took 2.5 to',
    '  3.0 s on the machine of the figures of 2026-11-24).',
    "  Then the file's 120,000 availabilities are checked in a plain loop, zod checking them (and",
    '  wording the refusal) only where the loop finds something, and their duplicates by a set of',
    "  quarters per aspect instead of a key made for each: reading and validating the bench's file,",
    '  before the first step can be written, took 0.28 to 0.33 s against 0.45 to 0.6 s (eight reads',
    '  each way, 2 × AMD EPYC, 2026-11-28, a machine on which the same code runs about twice as slowly',
    "  as on the one of 2026-11-24). The issue's bound is checked against the import of 93f6036 in",
    '  the same run: section "Import" of the roadmap grid (decision 0140).',
    "- Export of 10,000 aspects: one statement builds the document's arrays as JSON in the database (22 MB",
    '  of text, about 0.4 to 0.6 s on the embedded database), which the server sends on as it is and',
    '  gzips off the main thread (about 0.2 to 0.3 s). Rows read and parsed by the driver, then turned',
    '  into JSON again on the main thread, had taken about 0.3 s longer and were the longest event-loop',
    '  stall of the import figures.',
    '- Requests during an import on the embedded database: pages and cached reads are answered, and a',
    '  call that needs the database waits for one step of the import, not all of it (decision 0136).',
    ...BROWSER_LIMITS,
    '- Figures measured on a loaded machine (see the load averages above) are several times worse',
    '  than on an idle one; the ratios against the bare server and the static page, measured in the',
    '  same run, are the figures to compare.',
    '',
  );

  if (r.pglite) {
    lines.push(
      '## Embedded database memory',
      '',
      'Resident memory of a process that opens PGlite (bench/pgliteProbe.ts), in MB: on a new data',
      'directory (PGlite creates the database in the process), on an existing one, and after a small',
      'workload (60,000 rows of 300 characters inserted, then 20 sorted reads of 5,000 rows), with',
      "the workload's time.",
      '',
      measured(r.pglite.machine, `; medians of ${r.pglite.machine.runs} runs`),
      '',
      '| settings | new database | existing database | after the workload | workload (ms) |',
      '|---|---:|---:|---:|---:|',
      ...r.pglite.rows.map((x) => `| ${x.variant} | ${num(x.freshRssMb)} | ${num(x.reopenRssMb)} | ${num(x.afterWorkRssMb)} | ${num(x.workMs)} |`),
      '',
    );
  }
  if (r.grid) lines.push(...gridSection(r.grid));
  if (r.testdb) {
    lines.push(
      '## Opening a test database',
      '',
      'Each test file opens a database of its own (server/test/db.ts). It was migrated from nothing for every file; it is now a copy',
      "of one database migrated once per test run: a dump of the embedded database's data directory that PGlite loads, or on",
      'PostgreSQL `CREATE DATABASE ... TEMPLATE`. bench/testDatabases.ts opens and closes both kinds in alternate rounds, so a busy',
      'machine slows both alike; the ratio, measured in the same run, is the figure to compare. Milliseconds.',
      '',
      measured(r.testdb.machine, `; medians of ${r.testdb.machine.runs} rounds`),
      '',
      '| database | template, once per run | migrated per file | copied from the template | ratio |',
      '|---|---:|---:|---:|---:|',
      ...r.testdb.rows.map(
        (x) => `| ${x.database} | ${num(x.templateMs)} | ${num(x.migratedMs)} | ${num(x.copiedMs)} | ${(x.migratedMs / x.copiedMs).toFixed(1)}x |`,
      ),
      '',
    );
  }
  return lines.join('\n');
}
