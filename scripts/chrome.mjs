// Finds the Chromium the browser tests drive, and gets one when none is there.
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

async function playwrightChromium() {
  try {
    const { chromium } = await import('@playwright/test');
    const p = chromium.executablePath();
    return p && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

export async function findChrome() {
  if (process.env.CHROME_PATH) {
    if (existsSync(process.env.CHROME_PATH)) return process.env.CHROME_PATH;
    console.warn(`CHROME_PATH is set to ${process.env.CHROME_PATH}, which does not exist; looking elsewhere.`);
  }
  for (const c of CANDIDATES) if (existsSync(c)) return c;
  return playwrightChromium();
}

const isDebian = () =>
  existsSync('/etc/debian_version') || /ID(_LIKE)?=.*debian/.test(existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '');
const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Answers a Chromium path, installing one when needed; exits with the exact command when it cannot. */
export async function ensureChrome() {
  const found = await findChrome();
  if (found) return found;
  if (isRoot() && isDebian()) {
    console.log("No Chromium found: installing Debian's chromium package (apt-get install -y chromium)...");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    const res = spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
    if (res.status === 0 && existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  } else {
    console.log("No Chromium found: installing Playwright's Chromium (npx playwright install chromium)...");
    const res = spawnSync('npx', ['playwright', 'install', 'chromium'], { stdio: 'inherit' });
    const p = res.status === 0 ? await playwrightChromium() : null;
    if (p) return p;
  }
  console.error(
    '\nThe browser tests need Chromium and none could be installed automatically. Install it, then run npm test again:\n' +
      (isDebian() ? '  sudo apt-get install -y chromium\n' : '  npx playwright install chromium\n') +
      'or point CHROME_PATH at an existing Chrome or Chromium binary.\n',
  );
  process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await ensureChrome());
}
