import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { readFileSync } from 'node:fs';
const dir = new URL('../node_modules/@electric-sql/pglite/dist/', import.meta.url).pathname;
const dump = readFileSync('/tmp/template.tar');
const wasmModule = await WebAssembly.compile(readFileSync(dir + 'pglite.wasm'));
const fsBundle = new Blob([readFileSync(dir + 'pglite.data')]);
const runs: Record<string, number[]> = {};
for (let i = 0; i < 5; i++) {
  for (const [name, opts] of [['plain', {}], ['preloaded', { wasmModule, fsBundle }], ['preloaded-no-ext', { wasmModule, fsBundle, noext: true }]] as const) {
    const t = performance.now();
    const { noext, ...o } = opts as any;
    const db = await PGlite.create({ ...(noext ? {} : { extensions: { pg_trgm } }), loadDataDir: new Blob([dump]), ...o });
    await db.query('select 1');
    (runs[name] ??= []).push(Math.round(performance.now() - t));
    await db.close();
  }
}
console.log(runs);
