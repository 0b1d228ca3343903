/**
 * The embedded database's thread: PGlite runs here, off the server's event loop, and speaks the
 * PostgreSQL wire protocol on a private Unix socket, so the server reaches it with node-postgres
 * exactly as it reaches a PostgreSQL server.
 */
import { createServer, type Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { EMBEDDED_SETTINGS, settingsParams } from './settings';

interface StartData {
  dataDir?: string;
  socketPath: string;
  /** A data directory dump (PGlite's dumpDataDir) to start from. */
  load?: Uint8Array;
}

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

const { dataDir, socketPath, load } = workerData as StartData;
const port = parentPort!;

async function main() {
  const startParams = [...PGlite.defaultStartParams, ...settingsParams(EMBEDDED_SETTINGS)];
  // pg_trgm: the trigram indexes the list searches use (migration 0017).
  const extensions = { pg_trgm };
  const loadDataDir = load ? new Blob([load as Uint8Array<ArrayBuffer>]) : undefined;
  const db = await PGlite.create(dataDir ? { dataDir, startParams, extensions } : { startParams, extensions, loadDataDir });
  const scheduler = new Scheduler(db);

  const server = createServer((socket) => {
    socket.setNoDelay(true);
    let buffer = Buffer.alloc(0);
    const run = (message: Uint8Array) => scheduler.enqueue(socket, message);

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
    socket.on('close', () => scheduler.closed(socket));
    socket.on('error', () => scheduler.closed(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  port.postMessage({ type: 'ready' });

  port.on('message', async (msg: { type: string }) => {
    if (msg.type === 'dump') {
      try {
        await scheduler.idle();
        const data = new Uint8Array(await (await db.dumpDataDir('none')).arrayBuffer());
        port.postMessage({ type: 'dump', data }, [data.buffer]);
      } catch (err) {
        port.postMessage({ type: 'dump', message: err instanceof Error ? err.message : String(err) });
      }
      return;
    }
    if (msg.type !== 'stop') return;
    scheduler.destroyAll();
    server.close();
    await scheduler.idle();
    await db.close();
    port.postMessage({ type: 'stopped' });
  });
}

interface Pending {
  socket: Socket;
  /** A wire-protocol message, or null: roll back what this closed connection left open. */
  message: Uint8Array | null;
}

/** Session settings each connection keeps to itself, as it would on a PostgreSQL server. */
const CONNECTION_SETTINGS = ['role', 'catalog.scope', 'catalog.tenant_id'] as const;
const SAVE_SETTINGS = `select ${CONNECTION_SETTINGS.map((name, i) => `current_setting('${name}', true) as s${i}`).join(', ')}`;
const RESTORE_SETTINGS = `select ${CONNECTION_SETTINGS.map((name, i) => `set_config('${name}', $${i + 1}, false)`).join(', ')}`;
const FRESH_SETTINGS = ['none', '', ''];

/**
 * PGlite has one session. Messages run one at a time in arrival order; while a connection has a
 * transaction open, only that connection's messages run, so another connection (a pool replacing
 * a broken one, say) never lands inside it. A connection that closes inside its transaction has it
 * rolled back before anyone else goes on. When the session passes from one connection to another,
 * the first one's role and row-level security settings are put aside and the second one's put back,
 * so no connection ever works with another's.
 */
class Scheduler {
  private readonly pending: Pending[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly saved = new Map<Socket, string[]>();
  private current: Socket | null = null;
  private owner: Socket | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly db: PGlite) {}

  enqueue(socket: Socket, message: Uint8Array) {
    this.sockets.add(socket);
    this.pending.push({ socket, message });
    this.pump();
  }

  closed(socket: Socket) {
    this.saved.delete(socket);
    if (this.current === socket) this.current = null;
    if (!this.sockets.delete(socket)) return;
    for (let i = this.pending.length - 1; i >= 0; i--) if (this.pending[i].socket === socket) this.pending.splice(i, 1);
    if (this.owner === socket) this.pending.unshift({ socket, message: null });
    this.pump();
  }

  destroyAll() {
    for (const s of this.sockets) s.destroy();
  }

  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private pump() {
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  private async drain() {
    for (;;) {
      const index = this.owner ? this.pending.findIndex((p) => p.socket === this.owner) : 0;
      if (index < 0 || this.pending.length === 0) return;
      const [item] = this.pending.splice(index, 1);
      try {
        if (item.message === null) {
          if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
        } else {
          if (item.socket !== this.current) await this.switchTo(item.socket);
          await this.db.execProtocolRawStream(item.message, {
            onRawData: (data) => {
              if (!item.socket.destroyed) item.socket.write(Buffer.from(data));
            },
          });
        }
      } catch (err) {
        port.postMessage({ type: 'log', message: `embedded database error: ${(err as Error).message}` });
        item.socket.destroy();
      }
      if (item.socket.destroyed && this.current === item.socket) this.current = null;
      this.owner = item.message !== null && this.db.isInTransaction() && !item.socket.destroyed ? item.socket : null;
      if (this.owner === null && item.message !== null && this.db.isInTransaction()) {
        // The connection went away inside its transaction: undo it before anyone else runs.
        await this.db.exec('ROLLBACK').catch(() => {});
      }
    }
  }

  private async switchTo(socket: Socket) {
    if (this.current && this.sockets.has(this.current)) {
      const row = (await this.db.query<Record<string, string | null>>(SAVE_SETTINGS)).rows[0]!;
      this.saved.set(
        this.current,
        CONNECTION_SETTINGS.map((_, i) => row[`s${i}`] ?? ''),
      );
    }
    await this.db.query(RESTORE_SETTINGS, this.saved.get(socket) ?? FRESH_SETTINGS);
    this.current = socket;
  }
}

main().catch((err) => {
  port.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
});
