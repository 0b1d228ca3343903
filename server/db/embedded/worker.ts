/**
 * The embedded database's thread: PGlite runs here, off the server's event loop, and speaks the
 * PostgreSQL wire protocol on a private Unix socket, so the server reaches it with node-postgres
 * exactly as it reaches a PostgreSQL server. One client connection is served at a time.
 */
import { createServer, type Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

interface StartData {
  dataDir?: string;
  socketPath: string;
}

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

const { dataDir, socketPath } = workerData as StartData;
const port = parentPort!;

async function main() {
  const db = await PGlite.create(dataDir ? { dataDir } : {});
  let queue: Promise<void> = Promise.resolve();
  const active = new Set<Socket>();

  const server = createServer((socket) => {
    active.add(socket);
    socket.setNoDelay(true);
    let buffer = Buffer.alloc(0);

    const run = (message: Uint8Array) => {
      // Messages run one after another; a client's replies stream straight back to its socket.
      queue = queue.then(() =>
        db.execProtocolRawStream(message, {
          onRawData: (data) => {
            if (!socket.destroyed) socket.write(Buffer.from(data));
          },
        }),
      ).catch((err) => {
        port.postMessage({ type: 'log', message: `embedded database error: ${(err as Error).message}` });
        socket.destroy();
      });
    };

    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (buffer.length >= 8) {
          const len = buffer.readInt32BE(0);
          const code = buffer.readInt32BE(4);
          if (len === 8 && code === SSL_REQUEST) {
            socket.write('N');
            buffer = buffer.subarray(8);
            continue;
          }
          if (len === 16 && code === CANCEL_REQUEST) {
            buffer = buffer.subarray(16);
            continue;
          }
          if (code === PROTOCOL_3) {
            if (buffer.length < len) return;
            run(new Uint8Array(buffer.subarray(0, len)));
            buffer = buffer.subarray(len);
            continue;
          }
        }
        if (buffer.length < 5) return;
        const len = 1 + buffer.readInt32BE(1);
        if (buffer.length < len) return;
        run(new Uint8Array(buffer.subarray(0, len)));
        buffer = buffer.subarray(len);
      }
    });

    const closed = () => {
      if (!active.delete(socket)) return;
      // A client that goes away inside a transaction must not leave it open for the next one.
      queue = queue.then(async () => {
        if (db.isInTransaction()) await db.exec('ROLLBACK');
      }).catch(() => {});
    };
    socket.on('close', closed);
    socket.on('error', closed);
  });
  server.maxConnections = 1;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  port.postMessage({ type: 'ready' });

  port.on('message', async (msg: { type: string }) => {
    if (msg.type !== 'stop') return;
    for (const s of active) s.destroy();
    server.close();
    await queue.catch(() => {});
    await db.close();
    port.postMessage({ type: 'stopped' });
  });
}

main().catch((err) => {
  port.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
});
