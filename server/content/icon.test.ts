import { describe, expect, it } from 'vitest';
import { ICON_MAX_BYTES } from '../../common/limits';
import { M } from '../../common/messages';
import { AppError } from '../errors';
import { validateIcon } from './icon';

const dataUrl = (type: string, bytes: Buffer | string) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
// Headers of 1x1 images: the check reads the signature and the declared size.
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const JPEG = Buffer.from('ffd8ffc0000b080001000101011100ffd9', 'hex');
const GIF = Buffer.from('4749463839610100010000000021f90401000000002c00000000010001000002024401003b', 'hex');

function failure(input: string): AppError {
  try {
    validateIcon(input);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected validateIcon to refuse the icon');
}

const decodeSvg = (url: string) => Buffer.from(url.replace('data:image/svg+xml;base64,', ''), 'base64').toString('utf8');

describe('validateIcon', () => {
  it('accepts PNG, JPEG and GIF whose content matches the declared type', () => {
    for (const [type, bytes] of [
      ['image/png', PNG],
      ['image/jpeg', JPEG],
      ['image/gif', GIF],
    ] as const) {
      expect(validateIcon(dataUrl(type, bytes))).toBe(dataUrl(type, bytes));
    }
  });

  it('refuses content that does not match the declared type', () => {
    expect(failure(dataUrl('image/png', JPEG))).toMatchObject({ statusCode: 400, message: M.invalidFileType });
    expect(failure(dataUrl('image/gif', 'hello'))).toMatchObject({ statusCode: 400, message: M.invalidFileType });
  });

  it('refuses other image types and anything that is not an image data URL', () => {
    expect(failure(dataUrl('image/webp', 'RIFF')).message).toBe(M.invalidImageType);
    expect(failure(dataUrl('image/bmp', 'BM')).message).toBe(M.invalidImageType);
    expect(failure(dataUrl('text/html', '<script>')).message).toBe(M.invalidFileType);
    expect(failure('https://example.com/icon.png').message).toBe(M.invalidFileType);
    expect(failure('data:image/png,rawdata').message).toBe(M.invalidImageType);
    expect(failure('data:image/png;base64,@@@').message).toBe(M.invalidImageType);
  });

  it('answers 413 for an image larger than the limit once decoded', () => {
    const big = Buffer.concat([PNG, Buffer.alloc(ICON_MAX_BYTES)]);
    const err = failure(dataUrl('image/png', big));
    expect(err.statusCode).toBe(413);
    expect(err.message).toMatch(/too large after compression \(101KB\)/);
  });

  it('sanitises SVG: no scripts, handlers, foreign objects or external references; keeps viewBox and fragments', () => {
    const svg = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)">
      <script>alert(1)</script><defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>
      <rect width="10" height="10" fill="url(#g)" style="fill:url(https://evil.example/x)"/>
      <circle r="2" fill="url(https://evil.example/y)"/><use href="https://evil.example/a.svg#x"/><use xlink:href="#g"/>
      <foreignObject><div>html</div></foreignObject><a href="javascript:alert(1)"><text>hi</text></a><image href="https://evil.example/p.png"/></svg>`;
    const clean = decodeSvg(validateIcon(dataUrl('image/svg+xml', svg)));
    expect(clean).toContain('viewBox="0 0 10 10"');
    expect(clean).toContain('fill="url(#g)"');
    expect(clean).toContain('xlink:href="#g"');
    for (const bad of ['script', 'onload', 'foreignObject', 'evil.example', 'javascript:', 'style=', '<image', '<a ']) {
      expect(clean).not.toContain(bad);
    }
  });

  it('refuses SVG that is not an svg document or declares entities', () => {
    expect(failure(dataUrl('image/svg+xml', '<html><body/></html>')).message).toBe(M.invalidFileType);
    expect(failure(dataUrl('image/svg+xml', '<!DOCTYPE svg [<!ENTITY x "y">]><svg></svg>')).message).toBe(M.invalidFileType);
    expect(failure(dataUrl('image/svg+xml', 'just text')).message).toBe(M.invalidFileType);
  });
});
