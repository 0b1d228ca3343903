import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { timeOrderedId } from './timeOrderedId';

describe('timeOrderedId', () => {
  it('makes UUIDs of version 7 that every id schema of the API accepts', () => {
    const id = timeOrderedId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(z.uuid().safeParse(id).success).toBe(true);
    // The time is in its first 48 bits.
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(Math.abs(ms - Date.now())).toBeLessThan(60_000);
  });

  it('makes ids that sort in the order they were made, all different, many within one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => timeOrderedId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
