import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTsv, toTsv } from './tsv';

describe('clipboard text of a spreadsheet', () => {
  it('reads rows and cells as Excel, LibreOffice and Google Sheets write them', () => {
    expect(parseTsv('a\tb\r\nc\td\r\n')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(parseTsv('a\tb\nc\td')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(parseTsv('"two\nlines"\t"say ""hi"""\t"tab\there"\r\nplain\t\t\r\n')).toEqual([
      ['two\nlines', 'say "hi"', 'tab\there'],
      ['plain', '', ''],
    ]);
    // A quote inside a cell that does not start with one is text.
    expect(parseTsv('5" screen\tok')).toEqual([['5" screen', 'ok']]);
    expect(parseTsv('single')).toEqual([['single']]);
    expect(parseTsv('')).toEqual([]);
  });

  it('writes what it reads back unchanged', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const width = rows[0]!.length;
        const square = rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? ''));
        // A lone empty cell is an empty clipboard.
        fc.pre(!(square.length === 1 && width === 1 && square[0]![0] === ''));
        expect(parseTsv(toTsv(square))).toEqual(square);
      }),
    );
  });
});
