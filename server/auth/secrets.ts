import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { serverSettings } from '../db/schema';

const MIN_LENGTH = 32;
const JWT_SECRET_SETTING = 'jwt_secret';

function newSecret(): string {
  return randomBytes(48).toString('base64url');
}

/** The secret an earlier start kept in DATA_DIR, if there is a usable one; writes nothing. */
export function storedJwtSecret(dataDir: string): string | undefined {
  const file = join(dataDir, 'jwt-secret');
  if (!existsSync(file)) return undefined;
  const value = readFileSync(file, 'utf8').trim();
  return value.length >= MIN_LENGTH ? value : undefined;
}

/** Embedded database: JWT_SECRET when given, else a secret generated once and kept in DATA_DIR (mode 600). */
export function resolveJwtSecret(explicit: string | undefined, dataDir: string): string {
  if (explicit) return explicit;
  mkdirSync(dataDir, { recursive: true });
  const stored = storedJwtSecret(dataDir);
  if (stored) return stored;
  const secret = newSecret();
  writeFileSync(join(dataDir, 'jwt-secret'), secret + '\n', { mode: 0o600 });
  return secret;
}

/**
 * PostgreSQL without JWT_SECRET: the one secret of every server process on the database, kept in
 * `server_settings`. The first process to get here stores its candidate and every later one reads
 * that back, so they all sign and verify with the same key (docs/decisions/0112-shared-limits.md).
 * The candidate is the secret this process kept in DATA_DIR before, when it has one, so sessions
 * signed before the secret moved to the database stay valid; else a new random one. `owner` is the
 * start-up connection (the application role cannot read the table).
 */
export async function sharedJwtSecret(owner: Db, candidate: string = newSecret()): Promise<string> {
  await owner.insert(serverSettings).values({ name: JWT_SECRET_SETTING, value: candidate }).onConflictDoNothing();
  const [row] = await owner.select({ value: serverSettings.value }).from(serverSettings).where(eq(serverSettings.name, JWT_SECRET_SETTING));
  if (!row || row.value.length < MIN_LENGTH) throw new Error('The signing secret kept in the database is missing or too short.');
  return row.value;
}
