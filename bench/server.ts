/** Starts the product as `npm start` does, in its own process, and measures its start-up. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ADMIN = { email: 'bench-admin@example.com', password: 'bench-password-123' };

export interface RunningServer {
  url: string;
  pid: number;
  /** From spawning the process to the first answered request. */
  startMs: number;
  stop(): Promise<void>;
}

/**
 * The product at another commit, to run next to this one (startServer's `root`): `git archive` of
 * the commit into `dir` (nothing in this checkout changes), with this checkout's node_modules.
 */
export function checkoutAt(commit: string, dir: string): string {
  const root = join(dir, `at-${commit}`);
  mkdirSync(root, { recursive: true });
  const extracted = spawnSync('sh', ['-c', `git archive ${JSON.stringify(commit)} | tar -x -C ${JSON.stringify(root)}`], { cwd: ROOT, encoding: 'utf8' });
  if (extracted.status !== 0) throw new Error(`git archive ${commit}: ${extracted.stderr}`);
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}

export async function startServer(opts: {
  port: number;
  dataDir: string;
  webRoot: string;
  databaseUrl?: string;
  env?: Record<string, string>;
  /** Another checkout of the product (an older commit) to run instead of this one. */ root?: string;
}): Promise<RunningServer> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(opts.port),
    HOST: '127.0.0.1',
    DATA_DIR: opts.dataDir,
    WEB_ROOT: opts.webRoot,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    SEED_DEMO: 'false',
    API_RATE_LIMIT: '0',
    BENCH_METRICS: '1',
    SKIP_WEB_BUILD: '1',
    LOG_LEVEL: 'warn',
    ...(opts.env ?? {}),
  };
  delete env.DATABASE_URL;
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  // A server already on the port (one an interrupted run left) would answer in this one's place.
  if ((await statusOf(`http://127.0.0.1:${opts.port}/api/health`)) !== 0) {
    throw new Error(`port ${opts.port} is in use: stop what listens there (an earlier bench's server?) or set BENCH_PORT`);
  }
  const started = performance.now();
  // BENCH_CPU_PROFILE_DIR: the server writes a CPU profile of each of its threads there when it stops.
  const profile = process.env.BENCH_CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, 'scripts/start.mjs'], { cwd: opts.root ?? ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${opts.port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server stopped during start: ${stderr}`);
    if ((await statusOf(`${url}/api/health`)) === 200) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const startMs = performance.now() - started;
  return { url, pid: child.pid!, startMs, stop: () => stop(child) };
}

function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Resident memory of a process in bytes (Linux). */
export function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) * 1024;
}

/** The raw bytes of a GET, compressed bodies left compressed (fetch would decode them). */
export function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts bench/baseline.mjs serving the given files; GET /<index> answers file <index>. */
export async function startBaseline(port: number, files: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./baseline.mjs', import.meta.url)), String(port), ...files], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the baseline server stopped (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => stop(child) };
}
