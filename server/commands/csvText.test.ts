import { describe, expect, it } from 'vitest';
import { decodeCsv, separatorOf } from './csvText';

const TEXT = 'Catégorie – Coût : 5 € l’unité';

describe('decodeCsv', () => {
  it('reads UTF-8 with and without its byte order mark', () => {
    const utf8 = Buffer.from(TEXT, 'utf8');
    expect(decodeCsv(utf8)).toEqual({ text: TEXT, encoding: 'utf-8' });
    expect(decodeCsv(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]))).toEqual({ text: TEXT, encoding: 'utf-8' });
  });

  it('reads UTF-16 in either byte order by its byte order mark', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')]);
    expect(decodeCsv(le)).toEqual({ text: TEXT, encoding: 'utf-16' });
    const be = Buffer.from(le);
    be.swap16();
    expect(decodeCsv(be)).toEqual({ text: TEXT, encoding: 'utf-16' });
  });

  it('reads a file that is not UTF-8 as Windows-1252, its dash, quote and euro sign included', () => {
    // "Catégorie – Coût : 5 € l’unité" as Excel's "CSV (Comma delimited)" writes it.
    const bytes = Buffer.from([
      0x43, 0x61, 0x74, 0xe9, 0x67, 0x6f, 0x72, 0x69, 0x65, 0x20, 0x96, 0x20, 0x43, 0x6f, 0xfb, 0x74, 0x20, 0x3a, 0x20, 0x35, 0x20, 0x80, 0x20, 0x6c, 0x92,
      0x75, 0x6e, 0x69, 0x74, 0xe9,
    ]);
    expect(decodeCsv(bytes)).toEqual({ text: TEXT, encoding: 'windows-1252' });
  });
});

describe('separatorOf', () => {
  it.each([
    ['Category,Aspect,Description,Public,2026-Q1', ','],
    ['Category;Aspect;Description;Public;2026-Q1\nA,B;C', ';'],
    ['"Category"\t"Aspect"\t"Description"\t"Public"', '\t'],
    ['Category', ','],
  ])('takes the separator of the heading row %#', (text, separator) => {
    expect(separatorOf(text)).toBe(separator);
  });
});
