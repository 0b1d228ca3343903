import sanitizeHtml from 'sanitize-html';
import { ICON_MAX_BYTES } from '../../common/limits';
import { fill, M } from '../../common/messages';
import { invalid, tooLarge } from '../errors';

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i;
const ACCEPTED = ['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml'] as const;
type AcceptedType = (typeof ACCEPTED)[number];

const SIGNATURES: Record<Exclude<AcceptedType, 'image/svg+xml'>, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
};

const SVG_TAGS = [
  'svg', 'g', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'tspan', 'defs',
  'linearGradient', 'radialGradient', 'stop', 'clipPath', 'mask', 'pattern', 'use', 'symbol', 'title', 'desc',
  'marker', 'filter', 'feGaussianBlur', 'feOffset', 'feBlend', 'feColorMatrix', 'feFlood', 'feComposite',
  'feMerge', 'feMergeNode',
];

const SVG_ATTRIBUTES = [
  'id', 'class', 'fill', 'fill-opacity', 'fill-rule', 'clip-rule', 'stroke', 'stroke-width', 'stroke-linecap',
  'stroke-linejoin', 'stroke-miterlimit', 'stroke-dasharray', 'stroke-dashoffset', 'stroke-opacity', 'opacity',
  'transform', 'd', 'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy', 'width', 'height',
  'points', 'viewBox', 'preserveAspectRatio', 'xmlns', 'xmlns:xlink', 'version', 'offset', 'stop-color',
  'stop-opacity', 'gradientUnits', 'gradientTransform', 'spreadMethod', 'clip-path', 'clipPathUnits', 'mask',
  'maskUnits', 'maskContentUnits', 'patternUnits', 'patternContentUnits', 'patternTransform', 'font-family',
  'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline', 'letter-spacing', 'href',
  'xlink:href', 'display', 'visibility', 'color', 'stdDeviation', 'in', 'in2', 'result', 'mode', 'values', 'type',
  'operator', 'dx', 'dy', 'markerWidth', 'markerHeight', 'refX', 'refY', 'orient', 'filter', 'flood-color',
  'flood-opacity', 'filterUnits', 'vector-effect',
];

/** A reference to anything but a fragment of the same document: url(...) or a link scheme. */
const EXTERNAL_URL = /url\s*\(\s*['"]?\s*(?!#)|javascript:|data:|vbscript:/i;

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
        if ((name === 'href' || name === 'xlink:href') && !value.trim().startsWith('#')) continue;
        if (EXTERNAL_URL.test(value)) continue;
        kept[name] = value;
      }
      return { tagName, attribs: kept };
    },
  },
};

/** Sanitises an SVG document: no scripts, event handlers, foreign objects or external references. */
export function sanitizeSvg(text: string): string | null {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) return null;
  const body = text.replace(/^\uFEFF/, '').replace(/<\?xml[^>]*\?>/i, '').replace(/<!--[\s\S]*?-->/g, '').trim();
  if (!/^<svg[\s>/]/.test(body) || !/(<\/svg\s*>|\/>)$/.test(body)) return null;
  const clean = sanitizeHtml(body, SVG_OPTIONS).trim();
  return /^<svg[\s>]/.test(clean) ? clean : null;
}

/**
 * Checks an icon data URL (CONTRACT section 5): PNG, JPEG, GIF or SVG, base64, at most
 * ICON_MAX_BYTES decoded, content matching the declared type. Answers the data URL to store,
 * with SVG sanitised and re-encoded.
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
  if (!SIGNATURES[type as keyof typeof SIGNATURES](bytes)) throw invalid(M.invalidFileType, 'iconUrl');
  return `data:${type};base64,${bytes.toString('base64')}`;
}
