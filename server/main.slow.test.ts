import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './test/reliability/server';

/** The real server process on the embedded database: first start, lock, clean shutdown, restart. */
const dataDir = mkdtempSync(join(tmpdir(), 'catalog-main-'));
const port = await freePort();
const children: ChildProcess[] = [];

function start(extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: '',
      ADMIN_PASSWORD: '',
      DATABASE_URL: '',
      WEB_ROOT: join(dataDir, 'no-web'),
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = async (marker = 'Service Catalog is running') => {
    const deadline = Date.now() + 150_000;
    while (!out.includes(marker)) {
      if (Date.now() > deadline) throw new Error(`server did not start:\n${out}`);
      if (child.exitCode !== null) throw new Error(`server exited:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { child, exited, ready, output: () => out };
}

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('server process', () => {
  let password = '';

  it('creates the super admin with a printed password on a new database and serves /api/health', async () => {
    const a = start();
    await a.ready();
    const m = /Password: (\S+)/.exec(a.output());
    expect(a.output()).toContain('Sign in as admin@example.com');
    expect(m).not.toBeNull();
    password = m![1];
    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', database: 'pglite' });
    const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password }),
    });
    expect(login.status).toBe(200);
    const session = await login.json();
    const services = await fetch(`http://127.0.0.1:${port}/api/services`, { headers: { authorization: `Bearer ${session.token}` } });
    expect((await services.json()).services.map((s: { name: string }) => s.name)).toContain('Demo');

    // A second process on the same data directory refuses to start with a clear message.
    const b = start({ PORT: String(port + 1) });
    expect(await b.exited).toBe(1);
    expect(b.output()).toMatch(/already in use by another server process/);

    // SIGTERM closes the server and the database cleanly and releases the lock.
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
  }, 240_000);

  it('restarts on the existing database without creating anything again, and the password still works', async () => {
    const a = start();
    await a.ready();
    expect(a.output()).toContain('Sign in with your existing account.');
    expect(a.output()).not.toMatch(/Password:/);
    const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password }),
    });
    expect(login.status).toBe(200);
    // Passwords and tokens never reach the logs.
    expect(a.output()).not.toContain(password);
    expect(a.output()).not.toContain((await login.json()).token);
    a.child.kill('SIGINT');
    expect(await a.exited).toBe(0);
  }, 240_000);

  it('refuses a bad configuration with a readable list', async () => {
    const c = start({ PORT: 'not-a-port', API_RATE_LIMIT: '-5' });
    expect(await c.exited).toBe(1);
    expect(c.output()).toMatch(/Invalid configuration:[\s\S]*PORT[\s\S]*API_RATE_LIMIT/);
  }, 60_000);
});
