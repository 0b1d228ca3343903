import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refuseAddress } from './targets';

/** The most of an answer's body read (and of it, the start kept for the delivery log). */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface SendResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * What the delivery log says of a failure before an answer: never the address a name resolved to
 * nor the text of a DNS, TLS or socket error, which would let whoever reads the log map the
 * network the product runs in.
 */
export const SEND_ERRORS = {
  refused: 'refused: not a public address',
  unreachable: 'could not connect',
  timeout: (ms: number) => `no answer within ${ms} ms`,
} as const;

/** An address the target resolved to that webhooks may not call. */
export class RefusedTarget extends Error {
  constructor() {
    super(SEND_ERRORS.refused);
  }
}

/**
 * A DNS lookup that refuses the whole answer if any address in it may not be called: the
 * connection then goes to the address checked here and nowhere else.
 */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      for (const a of addresses) {
        if (refuseAddress(a.address, allowPrivate)) return callback(new RefusedTarget(), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`no address for ${hostname}`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Connections kept open between deliveries to the same receiver, so a stream of events costs one
 * connection (and one TLS handshake) rather than one each. A new connection is made only through
 * the guarded lookup, so a kept one was checked when it was opened.
 */
const KEEP_ALIVE = { keepAlive: true, maxSockets: 16, maxFreeSockets: 4, timeout: 10_000, scheduling: 'lifo' } as const;
const agentPair = () => ({ 'http:': new http.Agent(KEEP_ALIVE), 'https:': new https.Agent(KEEP_ALIVE) });
/** Apart for each setting of private targets: a connection opened where they were allowed never serves where they are not. */
const agents = { allowed: agentPair(), refused: agentPair() };

/**
 * POSTs a webhook body: short timeout for the whole exchange, no redirects followed (a redirect is
 * a failure, so it can never lead to a refused address), the answer read up to a cap and dropped.
 */
export function sendWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const start = performance.now();
  const done = (ok: boolean, status: number | null, error: string | null): SendResult => ({
    ok,
    status,
    error,
    durationMs: Math.round(performance.now() - start),
  });
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      resolve(done(false, null, 'invalid URL'));
      return;
    }
    // A literal address is checked here: no lookup happens for it.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host)) {
      if (refuseAddress(host, opts.allowPrivate)) {
        resolve(done(false, null, SEND_ERRORS.refused));
        return;
      }
    }
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'service-catalog-webhooks/1' },
        lookup: guardedLookup(opts.allowPrivate),
        timeout: opts.timeoutMs,
        agent: agents[opts.allowPrivate ? 'allowed' : 'refused'][url.protocol === 'https:' ? 'https:' : 'http:'],
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const finish = () => {
          const status = res.statusCode ?? null;
          if (status !== null && status >= 200 && status < 300) resolve(done(true, status, null));
          else if (status !== null && status >= 300 && status < 400) resolve(done(false, status, 'redirect not followed'));
          else resolve(done(false, status, `answered ${status}`));
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    let timedOut = false;
    const giveUp = () => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    };
    const timer = setTimeout(giveUp, opts.timeoutMs);
    req.on('timeout', giveUp);
    req.on('error', (err) =>
      resolve(done(false, null, err instanceof RefusedTarget ? SEND_ERRORS.refused : timedOut ? SEND_ERRORS.timeout(opts.timeoutMs) : SEND_ERRORS.unreachable)),
    );
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}
