/**
 * The refused cases of the .catalog matrix (uploads.test.ts, suite 6): files that are not gzip, are
 * damaged, unpack past the limits, are not a catalog document, nest too deeply, hold forbidden keys
 * or content the database cannot hold, and uploads sent the wrong way. Each must be refused with its
 * exact message and leave every catalog table as it was.
 */
import { gzipSync } from 'node:zlib';
import { IMPORT_MESSAGES as I } from '../../commands/importService';
import type { call } from '../app';
import { PNG_16 } from './iconCases';
import { gz, gzipBomb, multipart, nested, VALID, validJson, withKey } from './uploadFixtures';

type Reply = Awaited<ReturnType<typeof call>>;

export interface CatalogCase {
  name: string;
  send: () => Promise<Reply>;
  status: number;
  message: string | RegExp;
}

/** How a case sends its upload: through the suite's own app, as its admin. */
export interface CatalogSenders {
  upload: (file: Buffer) => Promise<Reply>;
  uploadBody: (parts: Parameters<typeof multipart>[0], end?: boolean) => Promise<Reply>;
  postJson: (body: unknown) => Promise<Reply>;
}

/** The .catalog files and uploads POST /api/services/import must refuse, each with its status and message. */
export function refusedCatalogCases({ upload, uploadBody, postJson }: CatalogSenders): CatalogCase[] {
  const file = (name: string, make: () => Buffer, status: number, message: string | RegExp): CatalogCase => ({
    name,
    send: () => upload(make()),
    status,
    message,
  });
  const invalidContent = (where: string) => new RegExp(`^This \\.catalog file is invalid: .+ \\(${where.replace(/\./g, '\\.')}\\)$`);

  return [
    // Not gzip.
    file('plain JSON (not gzip)', () => Buffer.from(validJson), 400, I.notGzip),
    file('a ZIP archive', () => Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(60)]), 400, I.notGzip),
    file('a PNG renamed .catalog', () => PNG_16, 400, I.notGzip),
    file('an empty file', () => Buffer.alloc(0), 400, I.notGzip),
    file('one byte', () => Buffer.from([0x1f]), 400, I.notGzip),
    // Truncated or damaged gzip.
    file('only the gzip magic bytes', () => Buffer.from([0x1f, 0x8b]), 400, I.corrupt),
    file('the first half of a valid file', () => gz(VALID).subarray(0, Math.floor(gz(VALID).length / 2)), 400, I.corrupt),
    file('a valid file without its last 8 bytes (checksum and size)', () => gz(VALID).subarray(0, gz(VALID).length - 8), 400, I.corrupt),
    file(
      'a valid file with a wrong checksum',
      () => {
        const f = Buffer.from(gz(VALID));
        f[f.length - 8] ^= 0xff;
        return f;
      },
      400,
      I.corrupt,
    ),
    file(
      'a damaged deflate stream',
      () => {
        const f = Buffer.from(gz(VALID));
        f[10] = 0xff;
        return f;
      },
      400,
      I.corrupt,
    ),
    // Gzip bombs and size limits.
    file('a gzip bomb: 1 GB of spaces in 1 MB', () => gzipBomb(10 * 1024 * 1024, 100), 413, I.tooLargeUnpacked),
    file(
      'a gzip bomb behind the start of a valid document',
      () => gzipBomb(10 * 1024 * 1024, 10, '{"format":"service-catalog","version":1,"service":{"name":"'),
      413,
      I.tooLargeUnpacked,
    ),
    file('a file over 10 MB', () => Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(10 * 1024 * 1024 + 10)]), 413, I.tooLargeCompressed),
    // Not a catalog document.
    file('a gzip inside a gzip', () => gzipSync(gz(VALID)), 400, I.badJson),
    file('text that is not JSON', () => gz('{"format": "service-catalog",'), 400, I.badJson),
    file('a JSON array', () => gz('[]'), 400, I.wrongFormat),
    file('JSON null', () => gz('null'), 400, I.wrongFormat),
    file('a JSON string', () => gz('"service-catalog"'), 400, I.wrongFormat),
    file('another format', () => gz({ ...VALID, format: 'other-catalog' }), 400, I.wrongFormat),
    file('no format', () => gz({ ...VALID, format: undefined }), 400, I.wrongFormat),
    // Wrong version.
    file('version 2', () => gz({ ...VALID, version: 2 }), 400, I.wrongVersion),
    file('version 0', () => gz({ ...VALID, version: 0 }), 400, I.wrongVersion),
    file('version "1" (a string)', () => gz({ ...VALID, version: '1' }), 400, I.wrongVersion),
    file('version null', () => gz({ ...VALID, version: null }), 400, I.wrongVersion),
    file('no version', () => gz({ ...VALID, version: undefined }), 400, I.wrongVersion),
    // Deep nesting.
    file('100,000 nested arrays', () => gz(nested(100_000, '[', ']')), 400, I.tooDeep),
    file('100,000 nested objects', () => gz(nested(100_000, '{"a":', '}')), 400, I.tooDeep),
    file('100,000 nested arrays as the service name', () => gz(validJson.replace('"name":"Imported"', `"name":${nested(100_000, '[', ']')}`)), 400, I.tooDeep),
    file(
      '1,000 nested objects in an unknown field',
      () => gz(withKey('root', 'extra', nested(1000, '{"a":', '}'))),
      400,
      /^This \.catalog file is invalid: .*extra/,
    ),
    file(
      '1,000 nested arrays as an aspect title',
      () => gz(validJson.replace('"title":"Aspect 0"', `"title":${nested(1000, '[', ']')}`)),
      400,
      invalidContent('aspects.0.title'),
    ),
    // Prototype-pollution keys at several levels.
    file('__proto__ at the top', () => gz(withKey('root', '__proto__', '{"polluted":true}')), 400, I.forbiddenKey),
    file('__proto__ in the service', () => gz(withKey('service', '__proto__', '{"admin":true}')), 400, I.forbiddenKey),
    file('__proto__ in a category', () => gz(withKey('category', '__proto__', '{"polluted":true}')), 400, I.forbiddenKey),
    file('__proto__ in an aspect, nested twice', () => gz(withKey('aspect', '__proto__', '{"__proto__":{"polluted":true}}')), 400, I.forbiddenKey),
    file('constructor.prototype at the top', () => gz(withKey('root', 'constructor', '{"prototype":{"polluted":true}}')), 400, I.forbiddenKey),
    file('constructor in the service', () => gz(withKey('service', 'constructor', '{"name":"x"}')), 400, I.forbiddenKey),
    file('prototype in an aspect', () => gz(withKey('aspect', 'prototype', '{"polluted":true}')), 400, I.forbiddenKey),
    file('__proto__ spelt with JSON escapes', () => gz(withKey('root', '\\u005f\\u005fproto\\u005f\\u005f', '{"polluted":true}')), 400, I.forbiddenKey),
    // Content the database cannot hold, or that contradicts itself.
    file('a null character in a category name', () => gz({ ...VALID, categories: [{ id: 'c1', name: 'Core\u0000', position: 0 }] }), 400, I.nulCharacter),
    file(
      'a null character in an availability',
      () => gz({ ...VALID, availabilities: [{ aspect_id: 'a0', time_bucket: '2025-Q1', value: 'G\u0000A' }] }),
      400,
      I.nulCharacter,
    ),
    file(
      'an aspect of an unknown category',
      () => gz({ ...VALID, aspects: [{ ...VALID.aspects[0]!, category_id: 'nowhere' }] }),
      400,
      invalidContent('aspects'),
    ),
    file(
      'two aspects with one id',
      () => gz({ ...VALID, aspects: [VALID.aspects[0]!, VALID.aspects[0]!], availabilities: [] }),
      400,
      invalidContent('aspects'),
    ),
    // How the file is sent.
    {
      name: 'the file under another field name',
      send: () => uploadBody([{ field: 'upload', filename: 'service.catalog', content: gz(VALID) }]),
      status: 400,
      message: I.fileRequired,
    },
    {
      name: 'the file as a text field',
      send: () => uploadBody([{ field: 'file', content: 'H4sIAAAAAAAAA6uuBQBDv6ajAgAAAA==' }]),
      status: 400,
      message: I.fileRequired,
    },
    { name: 'no file, only a text field', send: () => uploadBody([{ field: 'note', content: 'hello' }]), status: 400, message: I.fileRequired },
    {
      name: 'a JSON body instead of a file',
      send: () => postJson(VALID),
      status: 400,
      message: I.fileRequired,
    },
    {
      name: 'a multipart body cut off inside the file',
      send: () => uploadBody([{ field: 'file', filename: 'service.catalog', content: gz(VALID) }], false),
      status: 400,
      message: I.incompleteUpload,
    },
  ];
}
