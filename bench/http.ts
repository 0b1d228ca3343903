/** HTTP helpers of the benchmark: an API client, wrk, percentiles. */
import { spawnSync } from 'node:child_process';

export class Client {
  token = '';
  constructor(readonly base: string) {}

  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.token) headers.set('authorization', `Bearer ${this.token}`);
    return fetch(this.base + path, { ...init, headers });
  }

  async json(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await this.fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async signIn(email: string, password: string): Promise<void> {
    const res = await this.json('POST', '/api/auth/login', { email, password });
    if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
    this.token = res.body.token;
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Installs wrk with apt-get when it is missing and this runs as root; false when unavailable. */
export function ensureWrk(): boolean {
  if (spawnSync('wrk', ['--version']).error === undefined) return true;
  if (process.getuid?.() !== 0) return false;
  console.log('installing wrk (apt-get)');
  spawnSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return spawnSync('wrk', ['--version']).error === undefined;
}

export interface WrkResult {
  rps: number;
  p99Ms: number;
  non2xx: number;
}

/**
 * Requests per second and p99 latency of GET url at `connections` connections for `seconds`, with
 * wrk; `script`, a wrk Lua script's path, makes the requests instead (writes with their bodies).
 */
export function wrk(url: string, headers: Record<string, string>, seconds: number, connections = 10, script?: string): WrkResult {
  const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency'];
  if (script) args.push('-s', script);
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const out = spawnSync('wrk', [...args, url], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`wrk failed: ${out.stderr}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out.stdout)?.[1] ?? 0);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out.stdout);
  const unit = p99 ? { us: 0.001, ms: 1, s: 1000 }[p99[2] as 'us' | 'ms' | 's'] : 0;
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out.stdout)?.[1] ?? 0);
  return { rps, p99Ms: p99 ? Number(p99[1]) * unit : 0, non2xx };
}

/** A GET timed by the client, with the server's own time on it from its Server-Timing header. */
export async function timedGet(client: Client, path: string, headers: Record<string, string> = {}): Promise<{ ms: number; serverMs: number; bytes: number }> {
  const started = performance.now();
  const res = await client.fetch(path, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  const serverMs = Number(/dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1] ?? NaN);
  return { ms, serverMs, bytes: body.length };
}
