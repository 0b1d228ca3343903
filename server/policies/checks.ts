import { AsyncLocalStorage } from 'node:async_hooks';
import type { Capability } from './permissions';

/**
 * The capabilities the access layer checked while a piece of work ran, for those who ask: the API
 * tests compare them with the capability each route documents (server/test/app.ts). Nothing is
 * kept when nobody asks, as in the running app.
 */
const checked = new AsyncLocalStorage<Set<string>>();

/** Notes that the access layer decided on a capability (whatever it answered). */
export function noteCheck(capability: Capability): void {
  checked.getStore()?.add(capability);
}

/** Runs work with `seen` collecting the capabilities checked in it and in everything it starts. */
export function collectChecks<T>(seen: Set<string>, work: () => T): T {
  return checked.run(seen, work);
}
