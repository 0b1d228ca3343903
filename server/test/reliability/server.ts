import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';

export { freePort } from '../../../scripts/freePort.mjs';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'reliability-admin-password';

export interface RunningServer {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<number | null>;
  /** Milliseconds from spawn to "running". */
  startMs: number;
}

/** Starts the real server process (`node --import tsx server/main.ts`) and waits until it serves. */
export async function startServer(opts: { port: number; dataDir: string; databaseUrl?: string; env?: Record<string, string> }): Promise<RunningServer> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(opts.port),
      HOST: '127.0.0.1',
      DATA_DIR: opts.dataDir,
      DATABASE_URL: opts.databaseUrl ?? '',
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      API_RATE_LIMIT: '0',
      SEED_DEMO: 'false',
      WEB_ROOT: join(opts.dataDir, 'no-web'),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  while (!out.includes('Service Catalog is running')) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${out}`);
    }
    if (child.exitCode !== null) throw new Error(`server exited:\n${out}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { child, base: `http://127.0.0.1:${opts.port}`, output: () => out, exited, startMs: Date.now() - started };
}

/** kill -9, and wait until the process is gone. */
export async function killHard(server: RunningServer): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await server.exited;
}

export async function stopServer(server: RunningServer): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  await server.exited;
}

/** A fresh PostgreSQL database next to TEST_DATABASE_URL's, dropped by the returned function. */
export async function createPostgresDatabase(base: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** A small HTTP client for a running server, signed in as the bootstrap super admin. */
export class ApiClient {
  token = '';
  constructor(readonly base: string) {}

  async signIn(email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<void> {
    const res = await this.request('POST', '/api/auth/login', { email, password });
    if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.token = (res.body as { token: string }).token;
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (this.token) (init.headers as Record<string, string>).authorization = `Bearer ${this.token}`;
    if (body instanceof Buffer) init.body = body as unknown as BodyInit;
    else if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(this.base + path, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed };
  }
}
