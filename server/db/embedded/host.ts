import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface EmbeddedServer {
  /** Folder holding the Unix socket; node-postgres takes it as `host`. */
  socketDir: string;
  port: number;
  /** The whole data directory as an uncompressed tar, to start another embedded database from. */
  dump(): Promise<Uint8Array>;
  stop(): Promise<void>;
}

const SOCKET_PORT = 5432;

/**
 * Starts PGlite in a worker thread, listening on a private Unix socket (mode 700 folder). `load`,
 * a dump of another embedded database (`dump()`), gives an in-memory database starting as a copy.
 */
export async function startEmbedded(dataDir?: string, load?: Uint8Array): Promise<EmbeddedServer> {
  const socketDir = mkdtempSync(join(tmpdir(), 'catalog-pg-'));
  const socketPath = join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  const worker = new Worker(new URL('./workerEntry.mjs', import.meta.url), { workerData: { dataDir, socketPath, load } });
  const cleanup = () => rmSync(socketDir, { recursive: true, force: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const onMessage = (msg: { type: string; message?: string }) => {
        if (msg.type === 'ready') resolve();
        else if (msg.type === 'error') reject(new Error(`The embedded database failed to start: ${msg.message}`));
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`The embedded database stopped during start (exit ${code})`)));
    });
  } catch (err) {
    await worker.terminate();
    cleanup();
    throw err;
  }
  worker.on('message', (msg: { type: string; message?: string }) => {
    if (msg.type === 'log') process.stderr.write(`${msg.message}\n`);
  });
  let stopping: Promise<void> | undefined;
  return {
    socketDir,
    port: SOCKET_PORT,
    dump: () =>
      new Promise<Uint8Array>((resolve, reject) => {
        const onMessage = (msg: { type: string; data?: Uint8Array; message?: string }) => {
          if (msg.type !== 'dump') return;
          worker.off('message', onMessage);
          if (msg.data) resolve(msg.data);
          else reject(new Error(`The embedded database could not be dumped: ${msg.message}`));
        };
        worker.on('message', onMessage);
        worker.postMessage({ type: 'dump' });
      }),
    stop: () =>
      (stopping ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => void worker.terminate().then(() => resolve()), 10_000);
        worker.on('message', (msg: { type: string }) => {
          if (msg.type !== 'stopped') return;
          clearTimeout(timer);
          void worker.terminate().then(() => resolve());
        });
        worker.postMessage({ type: 'stop' });
      }).finally(cleanup)),
  };
}
