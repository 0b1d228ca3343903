import { MAX_SLUG_LENGTH } from './limits';

/** Slugs: lowercase letters, digits and hyphens (spec section 5). */
export const SLUG_PATTERN = /^[a-z0-9-]+$/;

/** Auto-slug: lowercase, whitespace to hyphens, every other character removed. */
export function autoSlug(name: string): string {
  return name
    .toLowerCase()
    .trim()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .slice(0, MAX_SLUG_LENGTH);
}
