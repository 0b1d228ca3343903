import { resolve } from 'node:path';
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError, openDatabase } from './db';
import { buildApp } from './app';
import { resolveJwtSecret, sharedJwtSecret, storedJwtSecret } from './auth/secrets';
import { bootstrap } from './commands/bootstrap';

async function main() {
  const config = loadConfig();
  const dataDir = resolve(config.DATA_DIR);
  const database = await openDatabase(config.DATABASE_URL ? { url: config.DATABASE_URL } : { dataDir });
  // First-start work, one process at a time on a shared database: every process must end up with
  // the same signing secret, and the super admin, first tenant and Demo service are created once.
  const { jwtSecret, seeded } = await database.exclusive(async (owner) => ({
    jwtSecret:
      config.JWT_SECRET ?? (database.kind === 'postgres' ? await sharedJwtSecret(owner, storedJwtSecret(dataDir)) : resolveJwtSecret(undefined, dataDir)),
    seeded: await bootstrap(database.db, {
      adminEmail: config.ADMIN_EMAIL,
      adminPassword: config.ADMIN_PASSWORD,
      seedDemo: config.SEED_DEMO,
    }),
  }));
  const app = await buildApp({
    config,
    database,
    jwtSecret,
    webRoot: config.WEB_ROOT ? resolve(config.WEB_ROOT) : undefined,
  });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    try {
      await app.close();
    } finally {
      await database.close();
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.PORT, host: config.HOST });

  const lines = [
    '',
    `  Service Catalog is running: open ${config.publicUrl}`,
    `  Database: ${database.kind === 'pglite' ? `embedded (${resolve(dataDir, 'pglite')})` : 'PostgreSQL'}`,
  ];
  if (seeded.created) {
    lines.push(`  Sign in as ${seeded.email}`);
    if (seeded.generatedPassword) {
      lines.push(`  Password: ${seeded.generatedPassword}`, '  (generated once and shown only now: keep it somewhere safe)');
    } else {
      lines.push('  Password: the ADMIN_PASSWORD you set');
    }
  } else {
    lines.push('  Sign in with your existing account.');
  }
  process.stdout.write(lines.join('\n') + '\n\n');
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`Failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
