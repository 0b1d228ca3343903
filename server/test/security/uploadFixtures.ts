import { crc32, deflateSync, gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { CATALOG_TABLES } from '../tables';

/**
 * Files for the uploads and imports suite: real PNG, GIF and JPEG images of chosen sizes, hostile
 * SVG documents, and .catalog documents, gzip streams and multipart bodies built in memory; and
 * the state of every catalog table, to tell a refused upload that wrote nothing.
 */

export const dataUrl = (type: string, bytes: Buffer | string) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A greyscale PNG of the given size (a diagonal gradient, or blank at bit depth 1). `padTo` adds a
 * text chunk so the file is exactly that many bytes.
 */
export function png(width: number, height: number, opts: { bitDepth?: 1 | 8; padTo?: number } = {}): Buffer {
  const bitDepth = opts.bitDepth ?? 8;
  const rowBytes = bitDepth === 8 ? width : Math.ceil(width / 8);
  const raw = Buffer.alloc((rowBytes + 1) * height);
  if (bitDepth === 8) {
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw[y * (rowBytes + 1) + 1 + x] = ((x + y) * 255) / (width + height);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  const parts = [Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))];
  if (opts.padTo) {
    const size = parts.reduce((n, p) => n + p.length, 0);
    const text = Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(opts.padTo - size - 12 - 8, 'x')]);
    parts.splice(2, 0, chunk('tEXt', text));
  }
  return Buffer.concat(parts);
}

/**
 * A two-colour GIF of the given logical screen size. Its one frame covers the screen unless
 * `frame` declares another size (the pixel data then stays that of the screen).
 */
export function gif(width: number, height: number, frame: { width: number; height: number } = { width, height }): Buffer {
  const u16 = (n: number) => Buffer.from([n & 0xff, n >> 8]);
  // LZW with a minimum code size of 2: a clear code before every two pixels keeps the codes 3 bits wide.
  const pixels = width * height;
  const colour = (i: number) => ((i % width) + Math.floor(i / width)) % 2;
  const codes: number[] = [];
  for (let i = 0; i < pixels; i += 2) codes.push(4, colour(i), ...(i + 1 < pixels ? [colour(i + 1)] : []));
  codes.push(5);
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const code of codes) {
    acc |= (code & 7) << bits;
    bits += 3;
    while (bits >= 8) {
      bytes.push(acc & 0xff);
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits) bytes.push(acc & 0xff);
  const blocks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) {
    const part = bytes.slice(i, i + 255);
    blocks.push(Buffer.from([part.length, ...part]));
  }
  return Buffer.concat([
    Buffer.from('GIF89a'),
    u16(width),
    u16(height),
    Buffer.from([0x80, 0, 0]),
    Buffer.from([0x1c, 0x7e, 0xd6, 0xff, 0xff, 0xff]),
    Buffer.from([0x2c]),
    u16(0),
    u16(0),
    u16(frame.width),
    u16(frame.height),
    Buffer.from([0, 2]),
    ...blocks,
    Buffer.from([0, 0x3b]),
  ]);
}

/** 16x16 and 300x200 JPEGs as Chromium's canvas.toDataURL('image/jpeg', 0.85) writes them. */
export const JPEG_16 = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPERETFhwXExQaFRERGCEYGh0dHx8fExciJCIeJBweHx7/2wBDAQUFBQcGBw4ICA4eFBEUHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh7/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAAAwAF/8QAIhAAAQIEBwEAAAAAAAAAAAAAEhETAAIHFRQWJTFEYWIG/8QAFQEBAQAAAAAAAAAAAAAAAAAAAQT/xAAcEQADAAEFAAAAAAAAAAAAAAABAgUAEiEyQXH/2gAMAwEAAhEDEQA/AN2k1PM9XLV7dgWuM6Zn6lRA73hqpU9yNbdWuGNd4zQAHqZVPraKk/3uRblpNwxzXIaAD8zKp9bQ1UfvM823SbfgneQ6Zh5lRA73gtWuRLeDLYcN9aAJt2c//9k=',
  'base64',
);
export const JPEG_300x200 = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPERETFhwXExQaFRERGCEYGh0dHx8fExciJCIeJBweHx7/2wBDAQUFBQcGBw4ICA4eFBEUHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh7/wAARCADIASwDASIAAhEBAxEB/8QAGQABAQEBAQEAAAAAAAAAAAAAAAEIBQYH/8QAKxABAAEBBwQCAgIDAQAAAAAAAAEDAgQGBxek0jZWdbMIVQURFCESEzGR/8QAGwEBAQEAAwEBAAAAAAAAAAAABAMAAQUHCAb/xAAoEQADAAEBBgYDAQAAAAAAAAAAAQIDBAUREyJBURIjUnGh0SGBkfD/2gAMAwEAAhEDEQA/APOwpA9bpnlkoKCFMRMhYAemIlBYBCmXmQqKhTEShCghTETIhUUemImQCoUxEyFRUKYiUFRR6YiZAKhVCJkAqFMRMgFHpiJkAqFMRKAKhTLzIAQpiJRQhUKYiZAKPTESgQQIUxEyc5UV79TPnaUAWEKYiZALCFMRKAKPTETIgIVCmIlAIVCmImRAA9MRMlgFQpl5kQCoUxEoQAhTESigD0xEosAIUxEyFgEKYiZCgPTESgoIUxEyFgEKYiZEKCFMRKCgPTLygoIUxEo5wD36mfO0yUBCmImSgIUxEoKQD0xEooCFMRMhSBCmIlBSBCmImQpAPTESgpAhTETIUEKYiUFIB6ZeZCosIUxEoKioUxEyFRUKYiUAWB6YiZEKkKhTESgqKhTETIhYRUKYiUIBUKovMnNWAe+0z53lBYBCmXmQqKhTEShCghTETIh9tyGwLhXE+EL3f/zn4v8Al3mn+Qt0bNv+RVsfqxFOnMR+rNqI/wC2p/8AXxJpH4vdAX7ytT1UnV7Qupxb5e47HRQnk3NHd0jy97f3lfmaR5e9v7yvze5HQ8fL6n/Tt+Fj9KPDaR5e9v7yvzNI8ve395X5vcjjjZPU/wCnPDjseG0ky97f3lfmaSZe9v7yvze5HHFvuznwT2PDaSZe9v7yvzNJMve395X5vcjcSu5zuR4fSTL7t/eV+ZpLl92/vK/N7gceKu5yeH0ly+7f3lfmaS5fdv7yvze4HG9nPiZ4fSXL7t/eV+ZpLl92/vK/N7gcHPjrueH0ly++g3lfmaTZf/Qbyvze4HHhRzxL7s8RpNl/9BvK/M0my/8AoN5X5vbjjwT2OeNk9T/pjbGF0u/4/Fv5i4XSn/ru92v9elSsfuZ/xsWalqLMfuf7n+oj/rlu5mB15iHyl59tpxHU5H+WfpcS5UAUamKlAIWEKYiZAQIUxEopBAPTETJzgWHv9M+dpQBR6YiZEBCoUxEoBCoUxEyIaQ+L3QF+8rU9VJm9pD4v9AX7ytT1UnV7RfknYaJbsh9WAdCdsAGMAGMAGMAGMAGMAGMAGMAGMY+x/wBeYg8pefbacR28wOvMQeUvPttOI6LI+Zn67CuRBQGpipQUEKYiUFBCmImQoIVQiZOcA9+pnztKCkA9MRKKAhTETIUgQpiJQaQ+L/QF+8pU9VJnCGj/AIv9A37ylT1UnW69+UP0i5z6sA6Q7IAMYAMYAMYAMYAMYAMYAMYAMYx/j/rzEHlLz7bTiO3j/rzEHlLz7bTiPz2V8zP2eBci9hCwijUxcoQCj1QiZEECoUxEoQCoVReUc1UV79TPnaUIUEKYiZEKij0xEyAVCmImQ0f8X+gb95Sp6qTODR/xf6Bv3lKnqpOu1r8sbpluo+rAOoHgBjABjABjABjABjABjABjABjGP8wOvMQeUvPttOI7eP8ArzEHlLz7bTiw/M5XzM/cYFyT7AIBqYuUUIIHpiJkoQQhTESikAhTETJzoCFe/Uz52lAIVCmImRAA9MRMlgFQpl5kQ0f8YOgb95Sp6qTODR/xg6Bv3lKnqpAat+WMwLmPqoDqxYAYwAYwAYwAYwAYwAYwAYwAYxkDH/XmIPKXn22nEdvH/XmIPKXn22nEflcz5mfvdOvLn2QUBaYuZCgPTETIUEKYiZCosIUxEyc4B79TPnaZCkCFMRKCkCFMRMhSAemIlBo/4wdA37ylT1UmcYaO+MHQN+8pU9VILVPkFYl+T6qA64uAGMAGMAGMAGMAGMAGMAGMAGMZAx/15iDyl59tpxHcx/15iDyd59tpxH5DNXOz0LTry59kIIFFpjJQggUemXmQCoUxEoAqFUImTmwqK9+pnztMgFQpiJkKioUxEoKij0xEyH2vIjHOFsM4RvVw/N/lP4l4qX+3Ws2P49W3+7E06cRP7s2Zj/tmf/HxRRsqVLcxEI1Vq3l93Bs6/A1ay+7g2dfgyqorxyi6neap1ay+7g2dfgatZfdwbOvwZWVNpIqsKZqjVrL7uDZ1+Bq1l93Bs6/BldUnW4qtNLNT6s5fff7OvwNWcv8A7/Z1+DLCpvK0VWjh9Wan1Zy/+/2dfgas5f8A3+zr8GWBJ6ikVWz8b6s1Pqzl/wDf7OvwNWMv/v8AZ1+DLMKm9Xa6IqtmYn1f+/RqXVjL/wC/2dfgasYA+/2dfgy0qT12RdEVWycL6v4+jUmrGAPv9nX4GrGAPv8AZ1+DLcLCT2jkXRf79lVsXA+r+Po1JqvgD7/Z1+BqvgD7/Z1+DLcCb2plXRfP2VWwtO+r+Po6uL73d7/i38xfrpU/2Xe83+vVpW/1Mf5WLVS1MT+p/uP6mP8ArlkEOnyXvbZ32OFMqV0KEED0xUooCFMRMhQHpiJQUEKZeZOdAD36mfO8yWAVCmXmRAKhTEShACFMRKKAPTESiwAhTETIWAQpiJkKA9MRKCghTETIWAQpiJkQoIUxEoKA9MvKCghTESgoIUxEyFAemImQoIUxEyFRUKYiZCoqFMRKCoqFMRKOapA9+pnztMhSAemIlBSBCmImQoIUxEoKQD0y8yFRYQpiJQVFQpiJkKioUxEoAsD0xEyIVIVCmIlBUVCmImRCwioUxEoQCj1QiZEECoUxEoQQKPTLzIBUKYiUAVCqETIAQpiJkoKhTESjmqD3+mfOsoKA9MRKACFMRKKAhTESigD0xEooCFMRKKAhTLyUAemJlFAQpl5RQEKYiUUBCmIlFAQpiJRQB6YiUUAemIlFAQpiJQUEKYiUFBCmIkLAIUxEoKCFMvKP/9k=',
  'base64',
);

const SVG_NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"';
/** An SVG icon with a gradient, shapes, text and an internal reference: what a designer exports. */
export const SVG_PLAIN = `<?xml version="1.0" encoding="UTF-8"?>
<svg ${SVG_NS} viewBox="0 0 24 24" width="24" height="24">
  <title>Cloud</title>
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1c7ed6"/><stop offset="1" stop-color="rgb(232, 89, 12)"/></linearGradient>
  <path id="p" d="M6 19h12a4 4 0 0 0 0-8 6 6 0 0 0-11.6 1.5A3.5 3.5 0 0 0 6 19z"/></defs>
  <use xlink:href="#p" fill="url(#g)" transform="translate(0 1) scale(0.9)"/>
  <circle cx="12" cy="12" r="2" fill="hsl(200, 50%, 50%)" stroke="#fff" stroke-width="0.5"/>
  <text x="2" y="22" font-family="Arial" font-size="3">svc</text>
</svg>`;

/** An SVG document with the given content inside a plain icon. */
export const svg = (inner: string, rootAttributes = '') =>
  `<svg ${SVG_NS} viewBox="0 0 24 24"${rootAttributes}><rect width="24" height="24" fill="#1c7ed6"/>${inner}</svg>`;

/** A valid .catalog document with `aspects` aspects in one category, each with one availability. */
export function catalogDocument(aspects = 1, availabilityEvery = 1) {
  return {
    format: 'service-catalog',
    version: 1,
    exported_at: '2025-01-01T00:00:00.000Z',
    service: {
      name: 'Imported',
      slug: 'imported',
      description: '<p>From a file</p>',
      service_owner: 'Ops',
      subscription_model: 'Monthly',
      icon_url: null as string | null,
      timeline: ['2025-Q1', '2025-Q2'],
    },
    categories: [{ id: 'c1', name: 'Core', position: 0 }],
    aspects: Array.from({ length: aspects }, (_, i) => ({
      id: `a${i}`,
      category_id: 'c1',
      title: `Aspect ${i}`,
      description: '',
      is_public: i % 2 === 0,
      position: i,
    })),
    availabilities: Array.from({ length: Math.ceil(aspects / availabilityEvery) }, (_, i) => ({
      aspect_id: `a${i * availabilityEvery}`,
      time_bucket: '2025-Q1',
      value: 'GA',
    })),
    roles: [{ role_name: 'Student', position: 0 }],
    templates: [{ template_text: 'Planned', position: 0 }],
  };
}
export type CatalogDocument = ReturnType<typeof catalogDocument>;

export const gz = (doc: unknown) => gzipSync(typeof doc === 'string' ? doc : JSON.stringify(doc));

/**
 * A gzip bomb: `members` copies of one gzip member holding `memberBytes` of a byte, concatenated
 * (a valid multi-member gzip stream). Starting the text as a .catalog document makes the
 * unpacked size, not the JSON, the first thing to fail.
 */
export function gzipBomb(memberBytes: number, members: number, prefix = ''): Buffer {
  const first = gzipSync(Buffer.concat([Buffer.from(prefix), Buffer.alloc(memberBytes - prefix.length, 0x20)]), { level: 9 });
  const rest = gzipSync(Buffer.alloc(memberBytes, 0x20), { level: 9 });
  return Buffer.concat([first, ...Array.from({ length: members - 1 }, () => rest)]);
}

/** A multipart/form-data body of the given parts; `end: false` leaves the body unterminated. */
export function multipart(parts: { field: string; filename?: string; content: Buffer | string }[], end = true) {
  const boundary = `----upload${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.field}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    const type = p.filename ? 'Content-Type: application/octet-stream\r\n' : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(p.content), Buffer.from('\r\n'));
  }
  if (end) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  else chunks.splice(chunks.length - 1, 1);
  return { body: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A document without ids, slug and export time: what an import and its export must agree on. */
export function normalise(doc: CatalogDocument) {
  const category = new Map(doc.categories.map((c) => [c.id, c.name]));
  const aspect = new Map(doc.aspects.map((a) => [a.id, a.title]));
  return {
    service: { ...doc.service, slug: undefined },
    categories: doc.categories.map((c) => [c.name, c.position]),
    aspects: doc.aspects
      .map((a) => [category.get(a.category_id), a.title, a.description ?? '', a.is_public, a.position])
      .sort((x, y) => Number(x[4]) - Number(y[4])),
    availabilities: doc.availabilities.map((v) => `${aspect.get(v.aspect_id)}|${v.time_bucket}|${v.value}`).sort(),
    roles: doc.roles.map((r) => [r.role_name, r.position]),
    templates: doc.templates.map((r) => [r.template_text, r.position]),
  };
}

/** A valid document of three aspects, and its JSON with a key put in where a test wants it. */
export const VALID = catalogDocument(3);
export const validJson = JSON.stringify(VALID);
export const withKey = (path: 'root' | 'service' | 'category' | 'aspect', key: string, value: string) => {
  const insert = `"${key}":${value},`;
  const anchor = { root: '{"format"', service: '"service":{', category: '"categories":[{', aspect: '"aspects":[{' }[path];
  const at = validJson.indexOf(anchor) + anchor.length - (path === 'root' ? '"format"'.length : 0);
  return validJson.slice(0, at) + insert + validJson.slice(at);
};
export const nested = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);
export const polluted = () =>
  Object.keys(Object.prototype).length > 0 || ({} as Record<string, unknown>).polluted !== undefined || ({} as Record<string, unknown>).admin !== undefined;

export type Table = (typeof CATALOG_TABLES)[number];
export type State = Record<Table, { n: number; digest: string }>;

/** The row count and a digest of every row of every catalog table. */
export async function catalogState(db: Executor): Promise<State> {
  const query = CATALOG_TABLES.map(
    (table) => `select '${table}' as t, count(*)::int as n, coalesce(md5(string_agg(x::text, '|' order by x::text)), '') as digest from ${table} x`,
  ).join(' union all ');
  const res = (await db.execute(sql.raw(query))) as unknown as { rows: { t: Table; n: number; digest: string }[] };
  return Object.fromEntries(res.rows.map((r) => [r.t, { n: Number(r.n), digest: r.digest }])) as State;
}

export const deltas = (before: State, after: State) =>
  Object.fromEntries(CATALOG_TABLES.map((table) => [table, after[table].n - before[table].n])) as Record<Table, number>;
export const noDeltas = () => Object.fromEntries(CATALOG_TABLES.map((table) => [table, 0])) as Record<Table, number>;

/** The rows an import of a document with these aspects and availabilities adds. */
export function importDeltas(aspects: number, availabilities: number) {
  return {
    ...noDeltas(),
    services: 1,
    categories: 1,
    aspects,
    availabilities,
    availability_history: availabilities,
    actor_roles: 1,
    quick_templates: 1,
    audit_log: 1,
  };
}
