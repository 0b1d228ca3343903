/**
 * Tab-separated text as spreadsheets put it on the clipboard (Excel, LibreOffice, Google Sheets):
 * rows end with a new line (CRLF or LF), cells are separated by tabs, and a cell holding a tab, a
 * new line or a quote is quoted, its quotes doubled.
 */

/** The rows of a clipboard text; the new line after the last row makes no row of its own. */
export function parseTsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  // A cell is quoted only when a quote opens it.
  let quoted = false;
  let atCellStart = true;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      cell += ch;
      i++;
      continue;
    }
    if (ch === '"' && atCellStart) {
      quoted = true;
      atCellStart = false;
      i++;
      continue;
    }
    if (ch === '\t') {
      row.push(cell);
      cell = '';
      atCellStart = true;
      i++;
      continue;
    }
    if (ch === '\r' || ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      atCellStart = true;
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    cell += ch;
    atCellStart = false;
    i++;
  }
  if (cell !== '' || row.length || !atCellStart) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** One cell as spreadsheets write it: quoted when it holds a tab, a new line or a quote. */
function tsvCell(value: string): string {
  return /[\t\r\n"]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Rows as tab-separated text, CRLF after each row as Excel writes it. */
export function toTsv(rows: string[][]): string {
  return rows.map((r) => r.map(tsvCell).join('\t')).join('\r\n') + '\r\n';
}
