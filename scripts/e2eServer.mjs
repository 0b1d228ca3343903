// The server the browser tests drive: a fresh embedded database each run, known credentials.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';
import { root } from './webBuild.mjs';

const port = process.env.E2E_PORT ?? '3100';
const dataDir = join(root, '.e2e-data', port);
rmSync(dataDir, { recursive: true, force: true });
Object.assign(process.env, {
  PORT: port,
  DATA_DIR: dataDir,
  ADMIN_EMAIL: process.env.E2E_ADMIN_EMAIL ?? 'admin@example.com',
  ADMIN_PASSWORD: process.env.E2E_ADMIN_PASSWORD ?? 'admin-password-e2e',
  API_RATE_LIMIT: '0',
  LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '10000',
  LOG_LEVEL: 'warn',
  SKIP_WEB_BUILD: '1',
  ...(process.env.E2E_WEB_ROOT ? { WEB_ROOT: process.env.E2E_WEB_ROOT } : {}),
});
register();
await import('../server/main.ts');
