import sanitizeHtml from 'sanitize-html';
import { ICON_MAX_BYTES, ICON_MAX_DIMENSION } from '../../common/limits';
import { fill, M } from '../../common/messages';
import { invalid, tooLarge } from '../errors';

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i;
const ACCEPTED = ['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml'] as const;
type AcceptedType = (typeof ACCEPTED)[number];
type RasterType = Exclude<AcceptedType, 'image/svg+xml'>;
type Size = { width: number; height: number };

export const ICON_TOO_MANY_PIXELS = `The icon is too large: at most ${ICON_MAX_DIMENSION}x${ICON_MAX_DIMENSION} pixels`;

const SIGNATURES: Record<RasterType, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
};

/** The size in pixels the image header declares (every frame of a GIF), or null for a malformed header. */
const SIZES: Record<RasterType, (b: Buffer) => Size | null> = {
  'image/png': (b) => (b.length >= 24 && b.toString('latin1', 12, 16) === 'IHDR' ? { width: b.readUInt32BE(16), height: b.readUInt32BE(20) } : null),
  'image/jpeg': (b) => {
    // Segments up to the first frame header (SOF0-SOF15 except DHT, JPG and DAC), which holds the size.
    for (let i = 2; i + 4 <= b.length;) {
      if (b[i] !== 0xff) return null;
      const marker = b[i + 1]!;
      if (marker === 0xff) i += 1;
      else if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) i += 2;
      else if (marker === 0xd9 || marker === 0xda) return null;
      else if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        return i + 9 <= b.length ? { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) } : null;
      } else {
        const length = b.readUInt16BE(i + 2);
        if (length < 2) return null;
        i += 2 + length;
      }
    }
    return null;
  },
  'image/gif': (b) => {
    if (b.length < 13) return null;
    const size = { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
    const colorTable = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
    let i = 13 + colorTable(b[10]!);
    const skipSubBlocks = () => {
      while (i < b.length && b[i] !== 0) i += b[i]! + 1;
      i += 1;
    };
    while (i < b.length && b[i] !== 0x3b) {
      if (b[i] === 0x21) {
        i += 2;
        skipSubBlocks();
      } else if (b[i] === 0x2c && i + 10 <= b.length) {
        // An image descriptor: a frame may reach past the logical screen.
        size.width = Math.max(size.width, b.readUInt16LE(i + 1) + b.readUInt16LE(i + 5));
        size.height = Math.max(size.height, b.readUInt16LE(i + 3) + b.readUInt16LE(i + 7));
        i += 10 + colorTable(b[i + 9]!) + 1;
        skipSubBlocks();
      } else return null;
    }
    return size;
  },
};

const SVG_TAGS = [
  'svg',
  'g',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'text',
  'tspan',
  'defs',
  'linearGradient',
  'radialGradient',
  'stop',
  'clipPath',
  'mask',
  'pattern',
  'use',
  'symbol',
  'title',
  'desc',
  'marker',
  'filter',
  'feGaussianBlur',
  'feOffset',
  'feBlend',
  'feColorMatrix',
  'feFlood',
  'feComposite',
  'feMerge',
  'feMergeNode',
];

const SVG_ATTRIBUTES = [
  'id',
  'class',
  'fill',
  'fill-opacity',
  'fill-rule',
  'clip-rule',
  'stroke',
  'stroke-width',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-dasharray',
  'stroke-dashoffset',
  'stroke-opacity',
  'opacity',
  'transform',
  'd',
  'x',
  'y',
  'x1',
  'y1',
  'x2',
  'y2',
  'cx',
  'cy',
  'r',
  'rx',
  'ry',
  'fx',
  'fy',
  'width',
  'height',
  'points',
  'viewBox',
  'preserveAspectRatio',
  'xmlns',
  'xmlns:xlink',
  'version',
  'offset',
  'stop-color',
  'stop-opacity',
  'gradientUnits',
  'gradientTransform',
  'spreadMethod',
  'clip-path',
  'clipPathUnits',
  'mask',
  'maskUnits',
  'maskContentUnits',
  'patternUnits',
  'patternContentUnits',
  'patternTransform',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'text-anchor',
  'dominant-baseline',
  'letter-spacing',
  'href',
  'xlink:href',
  'display',
  'visibility',
  'color',
  'stdDeviation',
  'in',
  'in2',
  'result',
  'mode',
  'values',
  'type',
  'operator',
  'dx',
  'dy',
  'markerWidth',
  'markerHeight',
  'refX',
  'refY',
  'orient',
  'filter',
  'flood-color',
  'flood-opacity',
  'filterUnits',
  'vector-effect',
];

/** The namespaces an icon may declare; any other value of these attributes is dropped. */
const NAMESPACES: Record<string, string> = { xmlns: 'http://www.w3.org/2000/svg', 'xmlns:xlink': 'http://www.w3.org/1999/xlink' };
/** Functions a presentation attribute may use: colours, transforms and url(#fragment). */
const SAFE_FUNCTIONS = new Set(['rgb', 'rgba', 'hsl', 'hsla', 'matrix', 'translate', 'scale', 'rotate', 'skewx', 'skewy', 'url']);

/**
 * Whether an attribute value could reach outside the document: a scheme or other colon, a CSS
 * escape (which can spell url( or a scheme), a url(...) to anything but a fragment, or any other
 * function (image-set, src, element, expression...).
 */
function external(value: string): boolean {
  if (/[:\\]/.test(value)) return true;
  for (const [, name, args] of value.matchAll(/([a-z_-][\w-]*)\s*\(([^)]*)/gi)) {
    const fn = name!.toLowerCase();
    if (!SAFE_FUNCTIONS.has(fn) || (fn === 'url' && !/^\s*['"]?#/.test(args!))) return true;
  }
  return false;
}

const SVG_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: SVG_TAGS,
  allowedAttributes: { '*': SVG_ATTRIBUTES },
  // Links are checked below: only '#fragment' references survive.
  allowedSchemes: [],
  allowedSchemesAppliedToAttributes: [],
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'foreignObject', 'iframe', 'object', 'embed', 'template', 'noscript'],
  parser: { xmlMode: true, lowerCaseTags: false, lowerCaseAttributeNames: false, recognizeSelfClosing: true },
  transformTags: {
    '*': (tagName, attribs) => {
      const kept: Record<string, string> = {};
      for (const [name, value] of Object.entries(attribs)) {
        if (name in NAMESPACES) {
          if (value === NAMESPACES[name]) kept[name] = value;
        } else if (name === 'href' || name === 'xlink:href') {
          if (/^#[\w.-]+$/.test(value.trim())) kept[name] = value;
        } else if (!external(value)) kept[name] = value;
      }
      // Without its namespace an SVG file does not render as an image.
      if (tagName === 'svg' && !kept.xmlns) kept.xmlns = NAMESPACES.xmlns!;
      return { tagName, attribs: kept };
    },
  },
};

/** Sanitises an SVG document: no scripts, event handlers, foreign objects or external references. */
export function sanitizeSvg(text: string): string | null {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) return null;
  const body = text
    .replace(/^\uFEFF/, '')
    .replace(/<\?xml[^>]*\?>/i, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .trim();
  if (!/^<svg[\s>/]/.test(body) || !/(<\/svg\s*>|\/>)$/.test(body)) return null;
  const clean = sanitizeHtml(body, SVG_OPTIONS).trim();
  return /^<svg[\s>]/.test(clean) ? clean : null;
}

/**
 * Checks an icon data URL (CONTRACT section 5, spec section 9): PNG, JPEG, GIF or SVG, base64, at
 * most ICON_MAX_BYTES decoded, content matching the declared type, and a raster image at most
 * ICON_MAX_DIMENSION pixels each way (a small file must not declare a huge picture). Answers the
 * data URL to store, with SVG sanitised and re-encoded.
 */
export function validateIcon(dataUrl: string): string {
  const match = DATA_URL.exec(dataUrl.trim());
  if (!match || !dataUrl.trim().toLowerCase().startsWith('data:image/')) {
    const declared = /^data:([^;,]+)/i.exec(dataUrl.trim())?.[1]?.toLowerCase() ?? '';
    throw invalid(declared.startsWith('image/') ? M.invalidImageType : M.invalidFileType, 'iconUrl');
  }
  const type = match[1]!.toLowerCase();
  if (!(ACCEPTED as readonly string[]).includes(type)) throw invalid(M.invalidImageType, 'iconUrl');
  const bytes = Buffer.from(match[2]!, 'base64');
  if (bytes.length === 0) throw invalid(M.invalidFileType, 'iconUrl');
  if (bytes.length > ICON_MAX_BYTES) throw tooLarge(fill(M.imageTooLarge, { size: Math.ceil(bytes.length / 1024) }));
  if (type === 'image/svg+xml') {
    const clean = sanitizeSvg(bytes.toString('utf8'));
    if (!clean) throw invalid(M.invalidFileType, 'iconUrl');
    return `data:image/svg+xml;base64,${Buffer.from(clean, 'utf8').toString('base64')}`;
  }
  if (!SIGNATURES[type as RasterType](bytes)) throw invalid(M.invalidFileType, 'iconUrl');
  const size = SIZES[type as RasterType](bytes);
  if (!size || size.width < 1 || size.height < 1) throw invalid(M.invalidFileType, 'iconUrl');
  if (size.width > ICON_MAX_DIMENSION || size.height > ICON_MAX_DIMENSION) throw invalid(ICON_TOO_MANY_PIXELS, 'iconUrl');
  return `data:${type};base64,${bytes.toString('base64')}`;
}
