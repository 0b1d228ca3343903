import { Worker } from 'node:worker_threads';
import { AppError } from '../errors';
import type { ImportHead, ImportPiece, PreparedImport } from './catalogFile';
import type { ImportRequest } from './importWorker';

interface Reply {
  id: number;
  head?: ImportHead;
  piece?: ImportPiece;
  end?: boolean;
  refusal?: { statusCode: number; code: string; message: string; field?: string };
  failure?: string;
}

/** A file being prepared: its head awaited, then its pieces as they come. */
interface Job {
  resolve: (prepared: PreparedImport) => void;
  reject: (err: Error) => void;
  headed: boolean;
  pieces: ImportPiece[];
  ended: boolean;
  error: Error | null;
  /** The reader was told to stop (an import that failed while writing): what comes is dropped. */
  dropped: boolean;
  wake: (() => void) | null;
}

/**
 * Prepares .catalog files in a worker thread: unpacking, parsing, validating and sanitising ten
 * thousand aspects takes seconds of CPU, which on the server's own thread would stall every other
 * request meanwhile. One thread, started on the first import and kept; files queue in order. A
 * refusal comes back as the same AppError the server would have thrown itself.
 *
 * `prepare` answers once the file is validated and its head made; the aspects and texts follow as
 * an async iterable of pieces, made by the thread while the first ones are written.
 */
export class ImportThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly jobs = new Map<number, Job>();

  /**
   * Prepares a file; one of more than `maxAspects` aspects is refused before it is validated. With
   * `headOnly` (a preview), no piece is made and `pieces` is empty.
   */
  prepare(file: Buffer, maxAspects: number, headOnly = false): Promise<PreparedImport> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { resolve, reject, headed: false, pieces: [], ended: false, error: null, dropped: false, wake: null });
      // A copy goes across; the upload's own buffer stays with the request.
      const request: ImportRequest = { id, file: new Uint8Array(file), maxAspects, headOnly };
      worker.postMessage(request);
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
    worker.on('message', (reply: Reply) => this.receive(reply));
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, job] of this.jobs) this.finish(id, job, err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The import thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private receive(reply: Reply): void {
    const job = this.jobs.get(reply.id);
    if (!job) return;
    if (reply.head) {
      job.headed = true;
      job.resolve({ ...reply.head, pieces: this.piecesOf(reply.id, job) });
    } else if (reply.piece) {
      if (!job.dropped) job.pieces.push(reply.piece);
      job.wake?.();
    } else if (reply.end) {
      this.finish(reply.id, job, null);
    } else if (reply.refusal) {
      const r = reply.refusal;
      this.finish(reply.id, job, new AppError(r.statusCode, r.code, r.message, r.field));
    } else {
      this.finish(reply.id, job, new Error(`The import thread failed: ${reply.failure ?? 'unknown error'}`));
    }
  }

  /** The file is done with: its reader learns of the end or the failure. */
  private finish(id: number, job: Job, err: Error | null): void {
    this.jobs.delete(id);
    job.ended = true;
    job.error = err;
    if (!job.headed) job.reject(err ?? new Error('The import thread ended a file without its head'));
    job.wake?.();
  }

  private async *piecesOf(id: number, job: Job): AsyncGenerator<ImportPiece> {
    try {
      for (;;) {
        const piece = job.pieces.shift();
        if (piece) yield piece;
        else if (job.error) throw job.error;
        else if (job.ended) return;
        else await new Promise<void>((resolve) => (job.wake = resolve));
      }
    } finally {
      // A reader that stops early leaves the rest to be dropped as it comes.
      job.wake = null;
      job.dropped = true;
      job.pieces = [];
      if (job.ended) this.jobs.delete(id);
    }
  }
}
