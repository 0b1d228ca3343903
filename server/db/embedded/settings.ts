/**
 * PostgreSQL settings of the embedded database, added to PGlite's own start parameters. PGlite
 * runs one backend in the server's process, so PostgreSQL's server-sized defaults (128 MB of
 * shared buffers among them) are memory the process holds for nothing: these sizes keep a
 * catalog's working set cached while holding a fraction of it. Measured in docs/performance.md
 * (bench/pgliteMemory.ts); the reasoning is in docs/decisions/0101-embedded-database-memory.md.
 */
export const EMBEDDED_SETTINGS: Record<string, string> = {
  shared_buffers: '32MB',
  wal_buffers: '1MB',
  temp_buffers: '2MB',
};

export function settingsParams(settings: Record<string, string>): string[] {
  return Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}
