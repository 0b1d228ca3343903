import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_LENGTH } from '../../common/limits';
import { generator } from '../test/generator';
import { availabilitySchema, cellsAreValid, readCatalogFile } from './catalogFile';

const VALID_CELL = { aspect_id: 'a0', time_bucket: '2025-Q1', value: 'Available' };

/** What each key of a made-up cell may hold: valid, at a bound, past it, of another type, or missing. */
const IDS = ['a0', 'a', '', 'x'.repeat(100), 'x'.repeat(101), '😀'.repeat(50), '😀'.repeat(51), ' ', 'a\u0001'];
const QUARTERS = ['2025-Q1', '2030-Q4', '2025-Q0', '2025-Q5', '25-Q1', '12025-Q1', ' 2025-Q1', '2025-Q1 ', '2025-Q1\n', '2025-q1', '2025Q1', ''];
const VALUES = [
  '',
  'Available',
  'x'.repeat(MAX_TEXT_LENGTH),
  'x'.repeat(MAX_TEXT_LENGTH + 1),
  '😀'.repeat(MAX_TEXT_LENGTH / 2),
  '😀'.repeat(MAX_TEXT_LENGTH / 2 + 1),
];
const OTHERS: unknown[] = [null, 0, 1.5, true, false, [], ['a0'], {}, { a: 1 }];
const MISSING = Symbol('missing');

function madeUpCell(pick: ReturnType<typeof generator>): unknown {
  const shape = pick.below(20);
  if (shape === 0) return pick(OTHERS);
  const cell: Record<string, unknown> = {};
  for (const [key, choices] of [
    ['aspect_id', IDS],
    ['time_bucket', QUARTERS],
    ['value', VALUES],
  ] as const) {
    const roll = pick.below(8);
    const value = roll === 0 ? pick([...OTHERS, MISSING]) : roll < 4 ? VALID_CELL[key] : pick(choices);
    if (value !== MISSING) cell[key] = value;
  }
  if (shape === 1) cell[pick(['extra', 'Value', 'aspectId', 'id'])] = pick([...OTHERS, 'x']);
  // As the file's JSON gives it.
  return JSON.parse(JSON.stringify(cell));
}

describe('cellsAreValid: the availabilities checked without zod', () => {
  it('accepts the cells zod accepts and no other, on 20,000 made-up cells', () => {
    const pick = generator(20261128);
    let accepted = 0;
    // zod counts code points; the loop leaves a text over its bound in UTF-16 units to zod.
    const overInUnits = (cell: unknown) => {
      const { aspect_id: id, value } = (cell ?? {}) as Record<string, unknown>;
      return (typeof id === 'string' && id.length > 100) || (typeof value === 'string' && value.length > MAX_TEXT_LENGTH);
    };
    for (let i = 0; i < 20_000; i++) {
      const cell = madeUpCell(pick);
      const zod = availabilitySchema.safeParse(cell).success;
      const loop = cellsAreValid([cell]);
      expect(loop === zod || (zod && overInUnits(cell)), `${JSON.stringify(cell)?.slice(0, 200)}: zod ${zod}, loop ${loop}`).toBe(true);
      if (loop) accepted++;
    }
    // Both answers are common: the comparison covers cells of either kind.
    expect(accepted).toBeGreaterThan(3_000);
    expect(accepted).toBeLessThan(17_000);
  });

  it('refuses a list with one bad cell among valid ones, and what is not a list', () => {
    const cells = Array.from({ length: 100 }, (_, i) => ({ ...VALID_CELL, aspect_id: `a${i}` }));
    expect(cellsAreValid(cells)).toBe(true);
    expect(cellsAreValid([...cells, { ...VALID_CELL, time_bucket: '2025-Q5' }])).toBe(false);
    expect(cellsAreValid([...cells, { ...VALID_CELL, extra: 1 }])).toBe(false);
    expect(cellsAreValid({ 0: VALID_CELL })).toBe(false);
    expect(cellsAreValid(null)).toBe(false);
    expect(cellsAreValid([])).toBe(true);
  });
});

describe('readCatalogFile: a file with bad availabilities is refused as before', () => {
  const doc = (availabilities: unknown[]) =>
    gzipSync(
      JSON.stringify({
        format: 'service-catalog',
        version: 1,
        service: { name: 'X', slug: 'x' },
        categories: [{ id: 'c', name: 'C', position: 0 }],
        aspects: [
          { id: 'a0', category_id: 'c', title: 'A', description: '', is_public: true, position: 0 },
          { id: 'a1', category_id: 'c', title: 'B', description: '', is_public: true, position: 1 },
        ],
        availabilities,
        roles: [],
        templates: [],
      }),
    );
  const refusal = async (availabilities: unknown[]) => {
    const err = await readCatalogFile(doc(availabilities)).then(
      () => null,
      (e: unknown) => e as { statusCode: number; message: string },
    );
    expect(err?.statusCode).toBe(400);
    return err!.message;
  };

  it('reads valid availabilities', async () => {
    const cells = [VALID_CELL, { ...VALID_CELL, time_bucket: '2025-Q2' }, { ...VALID_CELL, aspect_id: 'a1' }];
    expect((await readCatalogFile(doc(cells))).availabilities).toEqual(cells);
  });

  it('names the bad cell and its key', async () => {
    const good = { ...VALID_CELL, aspect_id: 'a1' };
    expect(await refusal([good, { ...VALID_CELL, time_bucket: '2025-Q5' }])).toMatch(/^This \.catalog file is invalid: .+ \(availabilities\.1\.time_bucket\)$/);
    expect(await refusal([good, good, { ...VALID_CELL, value: 'x'.repeat(MAX_TEXT_LENGTH + 1) }])).toMatch(/ \(availabilities\.2\.value\)$/);
    expect(await refusal([{ ...VALID_CELL, aspect_id: 5 }])).toMatch(/ \(availabilities\.0\.aspect_id\)$/);
    expect(await refusal([{ ...VALID_CELL, colour: 'red' }])).toMatch(/colour/);
  });

  it('refuses an availability of an unknown aspect, and two of one aspect and quarter', async () => {
    expect(await refusal([{ ...VALID_CELL, aspect_id: 'a9' }])).toBe('This .catalog file is invalid: An availability names an unknown aspect (availabilities)');
    expect(await refusal([VALID_CELL, { ...VALID_CELL, aspect_id: 'a1' }, { ...VALID_CELL, value: 'Again' }])).toBe(
      'This .catalog file is invalid: Duplicate availability (availabilities)',
    );
  });
});
