import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface EmbeddedServer {
  /** Folder holding the Unix socket; node-postgres takes it as `host`. */
  socketDir: string;
  port: number;
  stop(): Promise<void>;
}

const SOCKET_PORT = 5432;

/** Starts PGlite in a worker thread, listening on a private Unix socket (mode 700 folder). */
export async function startEmbedded(dataDir?: string): Promise<EmbeddedServer> {
  const socketDir = mkdtempSync(join(tmpdir(), 'catalog-pg-'));
  const socketPath = join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  const worker = new Worker(new URL('./workerEntry.mjs', import.meta.url), { workerData: { dataDir, socketPath } });
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
