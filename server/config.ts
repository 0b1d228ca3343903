import { z } from 'zod';
import { CSV_IMPORT_MAX_ASPECTS_DEFAULT, IMPORT_MAX_ASPECTS_CEILING, IMPORT_MAX_ASPECTS_DEFAULT, MAX_BATCH_ASPECTS, MAX_BATCH_CELLS } from '../common/limits';
import { ROLES } from '../common/roles';

const boolFlag = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
      .optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    ADMIN_EMAIL: z.string().email().optional(),
    ADMIN_PASSWORD: z.string().min(6, 'must be at least 6 characters').optional(),
    PUBLIC_URL: z.string().url().optional(),
    ENTRA_TENANT_ID: z.string().min(1).optional(),
    ENTRA_CLIENT_ID: z.string().min(1).optional(),
    ENTRA_CLIENT_SECRET: z.string().min(1).optional(),
    ENTRA_ISSUER: z.string().url().optional(),
    ENTRA_DEFAULT_TENANT: z.string().min(1).optional(),
    ENTRA_DEFAULT_ROLE: z.enum(ROLES).default('reader'),
    /** Failed sign-ins per account from one address per 15 minutes; more would make guessing cheap. */
    LOGIN_MAX_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).max(10).default(5),
    LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(30),
    /** Failed sign-ins of one account across addresses per 15 minutes that cut each address to one. */
    LOGIN_ACCOUNT_GUARD_FAILURES: z.coerce.number().int().min(1).default(100),
    /** false turns sign-in throttling off: only for the security scan and suites that sign in thousands of times. */
    LOGIN_THROTTLE: boolFlag.default(true),
    API_RATE_LIMIT: z.coerce.number().int().min(0).default(600),
    /** Public page and feed requests per address per minute (0: no limit). */
    PUBLIC_RATE_LIMIT: z.coerce.number().int().min(0).default(300),
    /** With DATABASE_URL: sign-in failures and API calls are counted in this Redis instead of the database. */
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
      .optional(),
    /** How long a session, tenant or service read may be reused while this process wrote nothing it came from. */
    CACHE_MAX_AGE_MS: z.coerce.number().int().min(0).default(60_000),
    SEED_DEMO: boolFlag.default(true),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SESSION_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .default(8 * 60 * 60),
    IMPERSONATION_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .default(60 * 60),
    TRUST_PROXY: boolFlag.default(false),
    /** Webhooks may call private and loopback addresses (and http:// on loopback); link-local stays refused (docs/decisions/0132-webhook-delivery.md). */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: boolFlag.default(false),
    /** Whether this process sends webhook deliveries ('off': they wait in the database for a process that does). */
    WEBHOOK_DELIVERY: z.enum(['on', 'off']).default('on'),
    /** Days a finished delivery (sent, or failed for good) stays in its endpoint's delivery log. */
    WEBHOOK_LOG_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** How long one delivery attempt may take, connection and answer together. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5000),
    /**
     * Seconds between two rounds of the embedded database's table upkeep: the vacuums and analyzes
     * PostgreSQL's autovacuum would make (docs/decisions/0143-embedded-upkeep.md). 0: none.
     */
    EMBEDDED_UPKEEP_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
    /** The most aspects one .catalog file may hold (docs/decisions/0136-imports-in-steps.md). */
    IMPORT_MAX_ASPECTS: z.coerce.number().int().min(1).max(IMPORT_MAX_ASPECTS_CEILING).default(IMPORT_MAX_ASPECTS_DEFAULT),
    /** The most rows (aspects) one CSV import may hold. */
    CSV_IMPORT_MAX_ASPECTS: z.coerce.number().int().min(1).max(MAX_BATCH_ASPECTS).default(CSV_IMPORT_MAX_ASPECTS_DEFAULT),
    /**
     * The most cells one step of a CSV apply writes; a larger apply is written in steps, 0: always
     * in one transaction. Unset: by database (docs/decisions/0139-csv-apply-in-steps.md).
     */
    CSV_APPLY_STEP_CELLS: z.coerce.number().int().min(0).max(MAX_BATCH_CELLS).optional(),
    /** Folder of the built web app (default dist/web). */
    WEB_ROOT: z.string().min(1).optional(),
  })
  .superRefine((e, ctx) => {
    // Under guard every address gets one failure for the account; a low threshold would let a handful
    // of addresses put any account there and slow its owner's typing mistakes.
    if (e.LOGIN_ACCOUNT_GUARD_FAILURES < 10 * e.LOGIN_MAX_FAILURES_PER_ACCOUNT) {
      ctx.addIssue({
        code: 'custom',
        path: ['LOGIN_ACCOUNT_GUARD_FAILURES'],
        message: `must be at least 10 times LOGIN_MAX_FAILURES_PER_ACCOUNT (${10 * e.LOGIN_MAX_FAILURES_PER_ACCOUNT})`,
      });
    }
  });

export type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  publicUrl: string;
  entra: { tenantId: string; clientId: string; clientSecret: string; issuer: string } | null;
}

export class ConfigError extends Error {}

/** Parses the environment; a bad value stops the boot with a readable list of every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, '');
  const entra =
    e.ENTRA_CLIENT_ID && e.ENTRA_CLIENT_SECRET && (e.ENTRA_TENANT_ID || e.ENTRA_ISSUER)
      ? {
          tenantId: e.ENTRA_TENANT_ID ?? '',
          clientId: e.ENTRA_CLIENT_ID,
          clientSecret: e.ENTRA_CLIENT_SECRET,
          issuer: e.ENTRA_ISSUER ?? `https://login.microsoftonline.com/${e.ENTRA_TENANT_ID}/v2.0`,
        }
      : null;
  return { ...e, publicUrl, entra };
}
