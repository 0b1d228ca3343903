import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const decisions = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/decisions');
const index = readFileSync(join(decisions, 'README.md'), 'utf8');
const records = readdirSync(decisions)
  .filter((name) => name.endsWith('.md') && name !== 'README.md')
  .sort();

/** The index's rows: `| [number](file) | title | status | subject |`. */
const rows = [...index.matchAll(/^\| \[(\d{4})\]\(([^)]+)\) \|([^|]+)\|([^|]+)\|([^|]+)\|$/gm)].map(([, number, file, title, status, subject]) => ({
  number: number!,
  file: file!,
  title: title!.trim(),
  status: status!.trim(),
  subject: subject!.trim(),
}));

function localLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('the index of decision records', () => {
  it('lists every record in docs/decisions, and only files that exist', () => {
    const listed = rows.map((row) => row.file);
    expect(records.filter((file) => !listed.includes(file))).toEqual([]);
    expect(listed.filter((file) => !existsSync(join(decisions, file)))).toEqual([]);
    expect(listed.filter((file, i) => listed.indexOf(file) !== i)).toEqual([]);
  });

  it('gives each record its own number, the one its file name starts with, its title and a status', () => {
    const numbers = rows.map((row) => row.number);
    expect(numbers.filter((number, i) => numbers.indexOf(number) !== i)).toEqual([]);
    for (const row of rows) {
      expect(row.file, row.file).toMatch(new RegExp(`^${row.number}-[a-z0-9-]+\\.md$`));
      const heading = /^# (.+)$/m.exec(readFileSync(join(decisions, row.file), 'utf8'))?.[1];
      expect(row.title, row.file).toBe(heading);
      expect(row.status, row.file).toMatch(/^(current|superseded by \d{4}|superseded in part by \d{4}( \(.+\))?)$/);
      expect(row.subject, row.file).not.toBe('');
    }
  });

  it('has no record whose links to other records point nowhere', () => {
    const broken = [index, ...records.map((file) => readFileSync(join(decisions, file), 'utf8'))].flatMap((text, i) =>
      localLinks(text)
        .filter((target) => !existsSync(resolve(decisions, target)))
        .map((target) => `${i === 0 ? 'README.md' : records[i - 1]} -> ${target}`),
    );
    expect(broken).toEqual([]);
  });
});
