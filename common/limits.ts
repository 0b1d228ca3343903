/** Business constants of spec section 9 and CONTRACT sections 1-5, shared by server and browser. */
export const MIN_PASSWORD_LENGTH = 6;
export const ICON_MAX_DIMENSION = 256;
export const ICON_MAX_BYTES = 100 * 1024;
export const ICON_QUALITY = 0.85;
export const ICON_ACCEPTED_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'svg'] as const;
export const SEARCH_DEBOUNCE_MS = 300;
/** Options a selector of users or tenants shows at once, whatever the installation holds (issue 25): the rest are found by typing. */
export const SELECTOR_OPTIONS_PAGE = 20;
/**
 * The most tenants a super admin's session answer lists in `availableTenants` (every active tenant
 * otherwise): the first by name, with the tenant in use and the person's own tenant always
 * among them. `availableTenantsTotal` says how many there are; the rest are found by searching.
 */
export const SESSION_TENANTS_CAP = 100;
/** Open live-update streams (GET /api/events) one person or one API token may hold in a server process (decision 0164). */
export const MAX_EVENT_STREAMS = 10;
export const NOTIFICATION_AUTOCLOSE_MS = 5000;
export const DELETE_CONFIRMATION_WORD = 'DELETE';
export const IMPORT_EXTENSION = '.catalog';
export const IMPORT_MAX_COMPRESSED_BYTES = 10 * 1024 * 1024;
export const IMPORT_MAX_UNPACKED_BYTES = 50 * 1024 * 1024;
/**
 * The most aspects of one .catalog file by default (IMPORT_MAX_ASPECTS), and the most a setting may
 * allow; an import writes in short steps whatever its size (docs/decisions/0136-imports-in-steps.md),
 * so the limit bounds how long one runs.
 */
export const IMPORT_MAX_ASPECTS_DEFAULT = 10_000;
export const IMPORT_MAX_ASPECTS_CEILING = 100_000;
export const MAX_TIMELINE_QUARTERS = 40;
export const DEFAULT_TIMELINE_QUARTERS = 8;
/** The most aspects a batch of availability writes may span: with the longest timeline, the most cells of one batch. */
export const MAX_BATCH_ASPECTS = 1_000;
export const MAX_BATCH_CELLS = MAX_TIMELINE_QUARTERS * MAX_BATCH_ASPECTS;
/**
 * The most rows (aspects) of one CSV import by default (CSV_IMPORT_MAX_ASPECTS): its apply is one
 * transaction, so this bounds how long other requests on the embedded database wait for it. A
 * setting may allow up to MAX_BATCH_ASPECTS.
 */
export const CSV_IMPORT_MAX_ASPECTS_DEFAULT = 1_000;
/** The largest body of a batch of availability writes. */
export const MAX_BATCH_BODY_BYTES = 16 * 1024 * 1024;
export const MAX_NAME_LENGTH = 200;
export const MAX_SLUG_LENGTH = 100;
export const MAX_TEXT_LENGTH = 10_000;
export const MAX_RICH_TEXT_LENGTH = 100_000;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_PASSWORD_LENGTH = 1024;
