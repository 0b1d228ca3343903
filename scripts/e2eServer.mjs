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
  // Every browser test signs in from this one address, wrong passwords included.
  LOGIN_THROTTLE: 'false',
  LOG_LEVEL: 'warn',
  SKIP_WEB_BUILD: '1',
  // A webhook's test event goes to a receiver the browser test runs on this machine.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  ...(process.env.E2E_WEB_ROOT ? { WEB_ROOT: process.env.E2E_WEB_ROOT } : {}),
});
// Microsoft sign-in against the local provider e2e/entra.e2e.ts starts on E2E_OIDC_PORT (discovery
// happens on the first sign-in, so the server starts without it).
const oidcPort = process.env.E2E_OIDC_PORT;
if (oidcPort) {
  process.env.ENTRA_CLIENT_ID ??= 'service-catalog-e2e';
  process.env.ENTRA_CLIENT_SECRET ??= 'e2e-client-secret-0123456789abcdef';
  process.env.ENTRA_TENANT_ID ??= '5d0c3e8a-7f41-4b6e-9d2a-e2e000000001';
  process.env.ENTRA_ISSUER ??= `http://127.0.0.1:${oidcPort}`;
  process.env.PUBLIC_URL ??= `http://localhost:${port}`;
}
register();
await import('../server/main.ts');
