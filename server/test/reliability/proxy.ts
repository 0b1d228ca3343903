import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export type Upstream = { host: string; port: number } | { path: string };
export type CutMode = 'refuse' | 'reset';

/**
 * A TCP proxy between the app and its database, so a test can take the database away without
 * touching the database server: `cut('refuse')` drops every connection and refuses new ones (the
 * server is down), `cut('reset')` accepts and resets them at once (the server is restarting);
 * `restore()` lets connections through again.
 */
export class DatabaseProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private mode: 'open' | CutMode = 'open';
  port = 0;

  constructor(private readonly upstream: Upstream) {}

  async start(port = 0): Promise<void> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `127.0.0.1:${this.port}`;
  }

  private accept(client: Socket): void {
    if (this.mode !== 'open') {
      client.destroy();
      return;
    }
    const upstream = 'path' in this.upstream ? connect(this.upstream.path) : connect(this.upstream.port, this.upstream.host);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.setNoDelay(true);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  async cut(mode: CutMode): Promise<void> {
    this.mode = mode;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (mode === 'refuse') await this.closeListener();
  }

  async restore(): Promise<void> {
    const port = this.port;
    this.mode = 'open';
    if (!this.server) await this.start(port);
  }

  private async closeListener(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async stop(): Promise<void> {
    await this.cut('refuse');
  }
}
