/**
 * The import thread: unpacks, parses, validates and prepares a .catalog file (server/commands/
 * importThread.ts), so that none of that work holds up the server's event loop. The file is read
 * and validated whole first; its head then goes back at once and each step's rows after it, as they
 * are made, so that the server writes the first steps while this thread prepares the rest.
 */
import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors';
import { prepareImport, readCatalogFile } from './catalogFile';

export interface ImportRequest {
  id: number;
  file: Uint8Array;
  maxAspects: number;
  /** Only the head is wanted (a preview): no piece is made. */
  headOnly: boolean;
}

parentPort!.on('message', async (msg: ImportRequest) => {
  let headSent = false;
  try {
    const doc = await readCatalogFile(Buffer.from(msg.file.buffer, msg.file.byteOffset, msg.file.byteLength), msg.maxAspects);
    const { pieces, ...head } = prepareImport(doc);
    parentPort!.postMessage({ id: msg.id, head });
    headSent = true;
    if (!msg.headOnly) for (const piece of pieces as Iterable<unknown>) parentPort!.postMessage({ id: msg.id, piece });
    parentPort!.postMessage({ id: msg.id, end: true });
  } catch (err) {
    const refusal = !headSent && err instanceof AppError ? { statusCode: err.statusCode, code: err.code, message: err.message, field: err.field } : undefined;
    parentPort!.postMessage({ id: msg.id, refusal, failure: refusal ? undefined : String((err as Error)?.stack ?? err) });
  }
});
