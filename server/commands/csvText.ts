import type { CsvEncoding } from '../../common/schemas/settings';

/**
 * The text of a CSV file as a spreadsheet saved it (docs/decisions/0142-csv-encodings.md):
 * - UTF-8, with or without a byte order mark (Excel's "CSV UTF-8", LibreOffice's default);
 * - UTF-16 with its byte order mark (LibreOffice's "Unicode", Excel's "Unicode Text");
 * - anything else that is not valid UTF-8 is read as Windows-1252, the encoding Excel's
 *   "CSV (Comma delimited)" writes on Western European systems. Read as UTF-8, its accented
 *   letters would become replacement characters and no longer match the catalog's names.
 */
export function decodeCsv(file: Buffer): { text: string; encoding: CsvEncoding } {
  if (file[0] === 0xef && file[1] === 0xbb && file[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(file.subarray(3)), encoding: 'utf-8' };
  if (file[0] === 0xff && file[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(file.subarray(2)), encoding: 'utf-16' };
  if (file[0] === 0xfe && file[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(file.subarray(2)), encoding: 'utf-16' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(file), encoding: 'utf-8' };
  } catch {
    return { text: decodeWindows1252(file), encoding: 'windows-1252' };
  }
}

/**
 * Windows-1252's characters at 0x80-0x9F, where it differs from Latin-1 (the WHATWG Encoding
 * Standard's index; the five bytes it leaves unassigned keep their C1 code points). Node's own
 * `TextDecoder('windows-1252')` reads those bytes as Latin-1 in some releases (20.18.3 onwards,
 * 22.13 onwards, 24), so the table is the product's.
 */
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(file: Buffer): string {
  return file.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/** The separator of the heading row: the one of comma, semicolon (Excel's regional CSV) and tab it holds most of. */
export function separatorOf(text: string): string {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const count = (s: string) => firstLine.split(s).length - 1;
  return [';', '\t'].reduce((best, s) => (count(s) > count(best) ? s : best), ',');
}
