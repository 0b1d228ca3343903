/** The one door to the database: the client, the schema and the tenant-scoped queries. */
export * from './client';
export * as tables from './schema';
