// npm run test:e2e -- [files...]: builds the web app into its own folder for this port, then runs
// the browser tests (all, or the files given). E2E_PORT picks the port (default 3100), so several
// runs can go side by side.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureChrome } from './chrome.mjs';
import { buildWeb, root } from './webBuild.mjs';

const port = process.env.E2E_PORT ?? '3100';
const webRoot = join(root, 'dist', `web-e2e-${port}`);
buildWeb(webRoot);
const chrome = await ensureChrome();
const res = spawnSync(
  process.execPath,
  [join(root, 'node_modules/@playwright/test/cli.js'), 'test', '-c', 'e2e/playwright.config.ts', ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      CHROME_PATH: chrome,
      E2E_PORT: port,
      E2E_WEB_ROOT: webRoot,
      PLAYWRIGHT_JSON_OUTPUT_NAME: join(root, 'test-results', `playwright-${port}.json`),
    },
  },
);
process.exit(res.status ?? 1);
