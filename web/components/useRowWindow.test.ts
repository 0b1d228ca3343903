import { describe, expect, it } from 'vitest';
import { fittedRange, grownRange, nextRange, rowAt, settledRange } from './rowRanges';
import { groupLayout, windowPieces } from './useRowWindow';

describe('windowPieces', () => {
  const heights = [10, 20, 30, 40, 50, 60];
  const height = (i: number) => heights[i]!;

  it('keeps the rows in full and makes each run of the others one gap as tall as its rows', () => {
    const full = new Set([2, 3]);
    expect(windowPieces(6, (i) => full.has(i), height)).toEqual([
      { full: false, from: 0, to: 1, height: 30 },
      { full: true, index: 2 },
      { full: true, index: 3 },
      { full: false, from: 4, to: 5, height: 110 },
    ]);
  });

  it('splits a run around a row kept in full far from the others (the focused row)', () => {
    const full = new Set([0, 4]);
    expect(windowPieces(6, (i) => full.has(i), height)).toEqual([
      { full: true, index: 0 },
      { full: false, from: 1, to: 3, height: 90 },
      { full: true, index: 4 },
      { full: false, from: 5, to: 5, height: 60 },
    ]);
  });

  it('gives every row in full, or one gap for all, and nothing for no rows', () => {
    expect(windowPieces(3, () => true, height).every((p) => p.full)).toBe(true);
    expect(windowPieces(3, () => false, height)).toEqual([{ full: false, from: 0, to: 2, height: 60 }]);
    expect(windowPieces(0, () => true, height)).toEqual([]);
  });
});

describe('rowAt', () => {
  // A gap of rows 5 to 8, 100 px each, its top at 1000 px.
  const h = () => 100;

  it('finds the first row whose bottom is below an edge', () => {
    expect(rowAt(1000, 5, 8, h, 950, 'top')).toBe(5);
    expect(rowAt(1000, 5, 8, h, 1100, 'top')).toBe(6);
    expect(rowAt(1000, 5, 8, h, 1101, 'top')).toBe(6);
    expect(rowAt(1000, 5, 8, h, 1250, 'top')).toBe(7);
    expect(rowAt(1000, 5, 8, h, 5000, 'top')).toBe(8);
  });

  it('finds the last row whose top is above an edge', () => {
    expect(rowAt(1000, 5, 8, h, 1050, 'bottom')).toBe(5);
    expect(rowAt(1000, 5, 8, h, 1100, 'bottom')).toBe(5);
    expect(rowAt(1000, 5, 8, h, 1101, 'bottom')).toBe(6);
    expect(rowAt(1000, 5, 8, h, 5000, 'bottom')).toBe(8);
  });

  it('uses each row\u2019s own height', () => {
    const heights = new Map([
      [5, 10],
      [6, 500],
      [7, 10],
      [8, 10],
    ]);
    expect(rowAt(0, 5, 8, (i) => heights.get(i)!, 300, 'top')).toBe(6);
    expect(rowAt(0, 5, 8, (i) => heights.get(i)!, 515, 'bottom')).toBe(7);
  });
});

describe('groupLayout', () => {
  it('numbers the rows as assistive technology counts them, rows not in the page included', () => {
    const groups = [{ aspects: [{ id: 'a' }, { id: 'b' }] }, { aspects: [] }, { aspects: [{ id: 'c' }] }];
    // Heading row 1; group 1 header 2, rows 3-4; group 2 header 5, its 'No aspects' row 6; group 3 header 7, row 8.
    expect(groupLayout(groups)).toEqual({ offsets: [0, 2, 2], keys: ['a', 'b', 'c'], ariaRowCount: 8, ariaRows: [2, 5, 7] });
  });
});

describe('nextRange', () => {
  it('keeps the window while it covers what is needed and is not too wide', () => {
    const prev = { start: 10, end: 30 };
    expect(nextRange(prev, { start: 12, end: 28 }, { start: 5, end: 35 }, { start: 5, end: 35 })).toBe(prev);
  });

  it('reaches ahead on the side that fell short', () => {
    expect(nextRange({ start: 10, end: 30 }, { start: 20, end: 40 }, { start: 15, end: 50 }, { start: 15, end: 50 })).toEqual({ start: 20, end: 50 });
    expect(nextRange({ start: 10, end: 30 }, { start: 5, end: 25 }, { start: 0, end: 28 }, { start: 0, end: 28 })).toEqual({ start: 0, end: 25 });
  });
});

describe('grownRange', () => {
  it('takes a step at most so many rows beyond the window and the rows in view, on each side', () => {
    // Scrolled down: the rows in view are in the window, which should reach 30 rows further.
    expect(grownRange({ start: 10, end: 30 }, { start: 20, end: 60 }, { start: 25, end: 35 }, 6)).toEqual({ start: 20, end: 41 });
    // Up as well.
    expect(grownRange({ start: 40, end: 60 }, { start: 0, end: 50 }, { start: 38, end: 45 }, 6)).toEqual({ start: 32, end: 50 });
    // A step within reach is answered as it is.
    const next = { start: 12, end: 34 };
    expect(grownRange({ start: 10, end: 30 }, next, { start: 20, end: 28 }, 6)).toBe(next);
  });

  it('always holds the rows in view, from them alone after a jump; none more with no rows to spare', () => {
    expect(grownRange({ start: 0, end: 20 }, { start: 150, end: 220 }, { start: 180, end: 192 }, 6)).toEqual({ start: 174, end: 198 });
    expect(grownRange({ start: 0, end: 20 }, { start: 0, end: 60 }, { start: 5, end: 25 }, 0)).toEqual({ start: 0, end: 25 });
    // A first window (none before) is not limited.
    expect(grownRange({ start: 0, end: -1 }, { start: 0, end: 60 }, { start: 0, end: 12 }, 0)).toEqual({ start: 0, end: 60 });
  });
});

describe('settledRange', () => {
  it('moves the window freely for the first renders in a row', () => {
    expect(settledRange({ start: 10, end: 30 }, { start: 40, end: 60 }, 0)).toEqual({ start: 40, end: 60 });
    expect(settledRange({ start: 10, end: 30 }, { start: 40, end: 60 }, 3)).toEqual({ start: 40, end: 60 });
  });

  it('then only grows it, so a window that keeps moving back and forth settles', () => {
    let range = { start: 10, end: 30 };
    const moves = [
      { start: 40, end: 60 },
      { start: 10, end: 30 },
    ];
    const seen: string[] = [];
    for (let pass = 0; pass < 12; pass++) {
      range = settledRange(range, moves[pass % 2]!, pass);
      seen.push(`${range.start}-${range.end}`);
    }
    expect(seen.slice(0, 4)).toEqual(['40-60', '10-30', '40-60', '10-30']);
    expect(new Set(seen.slice(5))).toEqual(new Set(['10-60']));
  });

  it('lets an empty table empty the window', () => {
    expect(settledRange({ start: 10, end: 30 }, { start: 0, end: -1 }, 9)).toEqual({ start: 0, end: -1 });
  });
});

describe('fittedRange', () => {
  const height = (i: number) => (i % 2 ? 100 : 50);
  it('cuts the window after the rows that fill the budget', () => {
    // Rows 2 to 4 fill 200 px of 260; row 5 crosses the budget's edge and is the last.
    expect(fittedRange({ start: 2, end: 30 }, height, 260)).toEqual({ start: 2, end: 5 });
  });
  it('keeps a window that is short enough, and an empty one', () => {
    const short = { start: 0, end: 3 };
    expect(fittedRange(short, height, 10_000)).toBe(short);
    const empty = { start: 0, end: -1 };
    expect(fittedRange(empty, height, 100)).toBe(empty);
  });
});
