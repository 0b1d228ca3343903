import { Worker } from 'node:worker_threads';
import { AppError } from '../errors';
import type { PreparedImport } from './catalogFile';

interface Reply {
  id: number;
  prepared?: PreparedImport;
  refusal?: { statusCode: number; code: string; message: string; field?: string };
  failure?: string;
}

/**
 * Prepares .catalog files in a worker thread: unpacking, parsing, validating and sanitising ten
 * thousand aspects takes seconds of CPU, which on the server's own thread would stall every other
 * request meanwhile. One thread, started on the first import and kept; files queue in order. A
 * refusal comes back as the same AppError the server would have thrown itself.
 */
export class ImportThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (p: PreparedImport) => void; reject: (e: Error) => void }>();

  /** Prepares a file; one of more than `maxAspects` aspects is refused before it is validated. */
  prepare(file: Buffer, maxAspects: number): Promise<PreparedImport> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // A copy goes across; the upload's own buffer stays with the request.
      worker.postMessage({ id, file: new Uint8Array(file), maxAspects });
    });
  }

  /** Starts the thread ahead of the first import, so that one does not wait for it to load. */
  warm(): void {
    this.start();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./importWorkerEntry.mjs', import.meta.url));
    // The thread never keeps the process alive on its own.
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const pending = this.waiting.get(reply.id);
      if (!pending) return;
      this.waiting.delete(reply.id);
      if (reply.prepared) pending.resolve(reply.prepared);
      else if (reply.refusal) {
        const r = reply.refusal;
        pending.reject(new AppError(r.statusCode, r.code, r.message, r.field));
      } else pending.reject(new Error(`The import thread failed: ${reply.failure ?? 'unknown error'}`));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const pending of this.waiting.values()) pending.reject(err);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The import thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
