/**
 * The import thread: unpacks, parses, validates and prepares a .catalog file (server/commands/
 * importThread.ts), so that none of that work holds up the server's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors';
import { prepareImport, readCatalogFile } from './catalogFile';

parentPort!.on('message', async (msg: { id: number; file: Uint8Array; maxAspects: number }) => {
  try {
    const doc = await readCatalogFile(Buffer.from(msg.file.buffer, msg.file.byteOffset, msg.file.byteLength), msg.maxAspects);
    parentPort!.postMessage({ id: msg.id, prepared: prepareImport(doc) });
  } catch (err) {
    const refusal = err instanceof AppError ? { statusCode: err.statusCode, code: err.code, message: err.message, field: err.field } : undefined;
    parentPort!.postMessage({ id: msg.id, refusal, failure: refusal ? undefined : String((err as Error)?.stack ?? err) });
  }
});
