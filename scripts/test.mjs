// npm test: type check, the API and unit suite (Vitest: its fast tier, then its slow tier), a fresh
// web build, the browser suite (Playwright in Chromium), then the scanners (sqlmap, wapiti). Prints
// one closing line "N passed, N failed" over all of them (the scan counts as one), after how long
// each phase took.
// npm run test:fast (--fast): the type check and the fast tier only, on the embedded database: the
// loop to run after each change. The slow tier is every test file named *.slow.test.ts
// (vitest.config.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureChrome } from './chrome.mjs';
import { buildWeb, root } from './webBuild.mjs';

const fast = process.argv.includes('--fast');
const SLOW_TESTS = '**/*.slow.test.ts';
const node = process.execPath;
const bin = (p) => join(root, 'node_modules', p);
const out = join(root, 'test-results');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const phases = [];
async function timed(title, fn) {
  const started = Date.now();
  try {
    return await fn();
  } finally {
    phases.push({ title, seconds: (Date.now() - started) / 1000 });
  }
}

function run(title, args, env = {}) {
  console.log(`\n== ${title}`);
  const started = Date.now();
  const res = spawnSync(node, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  phases.push({ title, seconds: (Date.now() - started) / 1000 });
  return res.status === 0;
}

const results = { passed: 0, failed: 0 };
let ok = true;

ok = run('Type check', [bin('typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json']) && ok;

/** One Vitest run; its tests count in the closing line. */
function vitest(title, name, args, env = {}) {
  const json = join(out, `vitest-${name}.json`);
  const passed = run(title, [bin('vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`, ...args], env);
  try {
    const v = JSON.parse(readFileSync(json, 'utf8'));
    results.passed += v.numPassedTests;
    results.failed += v.numFailedTests + (v.numTotalTests === 0 ? 1 : 0);
  } catch {
    results.failed += 1;
  }
  return passed;
}

// The fast loop is the embedded database's, whatever the environment names.
const fastEnv = fast ? { TEST_DATABASE_URL: '' } : {};
ok = vitest('API and unit tests, fast tier (Vitest)', 'fast', ['--exclude', SLOW_TESTS], fastEnv) && ok;
if (!fast) ok = vitest('API and unit tests, slow tier (Vitest)', 'slow', ['.slow.test.ts']) && ok;

if (!fast && process.env.SKIP_E2E !== '1') {
  await timed('Web build', () => buildWeb());
  const chrome = await ensureChrome();
  const pwJson = join(out, 'playwright.json');
  ok =
    run('Browser tests (Playwright, Chromium)', [bin('@playwright/test/cli.js'), 'test', '-c', 'e2e/playwright.config.ts'], {
      CHROME_PATH: chrome,
      PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson,
    }) && ok;
  try {
    const p = JSON.parse(readFileSync(pwJson, 'utf8'));
    results.passed += p.stats.expected + (p.stats.flaky ?? 0);
    results.failed += p.stats.unexpected;
  } catch {
    results.failed += 1;
  }
}

// Suite 13 of docs/security.md: sqlmap and wapiti against the server, counted as one test. It
// needs the web build above; SKIP_SCAN=1 leaves it out where the scanners cannot be installed.
if (fast) {
  // The fast loop has no browser suite and no scanners.
} else if (process.env.SKIP_E2E === '1' || process.env.SKIP_SCAN === '1') {
  console.log(`\n== Scanners (sqlmap, wapiti): skipped (${process.env.SKIP_SCAN === '1' ? 'SKIP_SCAN' : 'SKIP_E2E'}=1)`);
} else {
  const scanned = run('Scanners (sqlmap, wapiti)', [join(root, 'scripts/scan.mjs')]);
  ok = scanned && ok;
  results[scanned ? 'passed' : 'failed'] += 1;
}

const total = phases.reduce((sum, p) => sum + p.seconds, 0);
console.log('\n== How long each phase took');
for (const p of [...phases, { title: 'Total', seconds: total }]) console.log(`${p.title.padEnd(48)} ${formatSeconds(p.seconds)}`);
console.log(`\n${results.passed} passed, ${results.failed} failed`);
process.exit(ok && results.failed === 0 ? 0 : 1);

function formatSeconds(s) {
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}
