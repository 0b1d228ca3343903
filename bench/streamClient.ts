/**
 * What the sections of the change-stream step (bench/stream.ts) call as clients of the server
 * processes: an API call with its Server-Timing, a light GET /api/events stream that only notes when
 * each `catalog` event arrives, and wrk run without waiting; with the constants and helpers the
 * sections share.
 */
import { spawn } from 'node:child_process';
import { request, type ClientRequest } from 'node:http';
import type { WrkResult } from './http';

export const PROCESSES = 3;

export type Reply = { status: number; text: string; /** The server's own time on the call (Server-Timing). */ serverMs: number };

export async function send(base: string, method: string, path: string, token: string, slug: string, body?: unknown): Promise<Reply & { body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-tenant-slug': slug, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  const serverMs = Number(/dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1] ?? NaN);
  return { status: res.status, text, body: parsed, serverMs };
}

/**
 * A GET /api/events stream that keeps no more than it needs: the time each `catalog` event arrived.
 * No agent (a connection of its own, never pooled), as a browser's EventSource has.
 */
export interface LightStream {
  status: number;
  /** performance.now() of each catalog event's arrival. */
  arrivals: number[];
  onCatalog?: (at: number) => void;
  close(): void;
}

export function openStream(base: string, token: string, slug: string): Promise<LightStream> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined = undefined;
    req = request(
      `${base}/api/events`,
      { agent: false, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'x-tenant-slug': slug } },
      (res) => {
        const stream: LightStream = { status: res.statusCode ?? 0, arrivals: [], close: () => req!.destroy() };
        let tail = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = performance.now();
          const text = tail + chunk;
          // Each event is one line `event: catalog`; one chunk may hold several.
          let from = 0;
          let i: number;
          while ((i = text.indexOf('event: catalog\n', from)) >= 0) {
            stream.arrivals.push(at);
            stream.onCatalog?.(at);
            from = i + 1;
          }
          tail = text.slice(Math.max(from, text.length - 16));
        });
        res.on('error', () => {});
        resolve(stream);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** wrk as bench/http.ts runs it, but without waiting: several run at once against several servers. */
export function wrkAsync(url: string, headers: Record<string, string>, seconds: number, connections = 10): Promise<WrkResult> {
  const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', [...args, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk failed: ${err}`));
      const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
      const unit = p99 ? { us: 0.001, ms: 1, s: 1000 }[p99[2] as 'us' | 'ms' | 's'] : 0;
      resolve({
        rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
        p99Ms: p99 ? Number(p99[1]) * unit : 0,
        non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
      });
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));
