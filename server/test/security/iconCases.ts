import { expect } from 'vitest';
import { ICON_MAX_BYTES } from '../../../common/limits';
import { fill, M } from '../../../common/messages';
import { ICON_TOO_LARGE } from '../../../common/schemas/services';
import { ICON_TOO_MANY_PIXELS, validateIcon } from '../../content/icon';
import { dataUrl, gif, JPEG_16, JPEG_300x200, png, svg, SVG_PLAIN } from './uploadFixtures';

/**
 * The icon matrix of suite 6 (server/test/security/uploads.test.ts): every case an icon upload
 * must refuse with a clear message or store as a safe value, and the checks of what is stored.
 */
const NAMESPACES = ['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xlink'];
const decodeEntities = (s: string) =>
  s
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * Everything in an SVG document that could run script or fetch something: script and foreign
 * elements, elements that load or animate, handlers, processing instructions and declarations,
 * CSS escapes, and any attribute (entities decoded) that links anywhere but a #fragment.
 */
export function unsafeSvg(text: string): string[] {
  const found: string[] = [];
  const elements: [string, RegExp][] = [
    ['script', /<([\w-]+:)?script\b/i],
    ['foreign content', /<([\w-]+:)?(foreignObject|iframe|object|embed|html|body|div|img|a)\b/i],
    ['loading or animating element', /<([\w-]+:)?(image|feImage|font-face-uri|style|animate\w*|set|include)\b/i],
    ['processing instruction or declaration', /<[?!]/],
  ];
  for (const [what, pattern] of elements) if (pattern.test(text)) found.push(what);
  for (const m of text.matchAll(/\s([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/g)) {
    const name = m[1]!.toLowerCase();
    const value = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
    if (/^on/.test(name)) found.push(`handler ${name}`);
    else if (name === 'style' || name === 'xml:base') found.push(`attribute ${name}`);
    else if (name === 'xmlns' || name.startsWith('xmlns:')) {
      if (!NAMESPACES.includes(value)) found.push(`namespace ${value}`);
    } else if (name.endsWith('href')) {
      if (!value.trim().startsWith('#')) found.push(`${name}=${value}`);
    } else if (/\\/.test(value) || /[a-z][\w+.-]*:/i.test(value) || /url\s*\(\s*['"]?\s*(?!#)/i.test(value) || /\/\//.test(value)) {
      found.push(`${name}=${value}`);
    }
  }
  return found;
}

export const svgText = (url: string) => Buffer.from(url.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString('utf8');

export interface IconCase {
  name: string;
  icon: unknown;
  /** Refused: the status and message of create and edit; an import wraps the message. */
  refuse?: { status: number; message: string; importMessage?: string | RegExp };
  /** Accepted: checks of the stored value (already checked to be served back unchanged). */
  accept?: (stored: string) => void;
  /** A hostile SVG: its raw form must be flagged by unsafeSvg, so the check can fail. */
  hostileSvg?: string;
}

const same = (icon: string) => (stored: string) => expect(stored).toBe(icon);
const safeSvg =
  (...kept: string[]) =>
  (stored: string) => {
    expect(stored).toMatch(/^data:image\/svg\+xml;base64,/);
    const text = svgText(stored);
    expect(unsafeSvg(text), text).toEqual([]);
    // An svg root in the SVG namespace: what renders as an image.
    expect(text).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    for (const k of kept) expect(text).toContain(k);
    // Sanitising again changes nothing: the stored value is a fixed point of the check.
    expect(validateIcon(stored)).toBe(stored);
  };
export const svgUrl = (text: string) => dataUrl('image/svg+xml', text);
const hostile = (name: string, text: string, ...kept: string[]): IconCase => ({
  name,
  icon: svgUrl(text),
  accept: safeSvg('<rect', ...kept),
  hostileSvg: text,
});
const refused = (name: string, icon: unknown, status: number, message: string, importMessage?: string | RegExp): IconCase => ({
  name,
  icon,
  refuse: { status, message, importMessage },
});
const tooLong = /^This \.catalog file is invalid: Too big: expected string to have <=200000 characters \(service\.icon_url\)$/;

export const PNG_16 = png(16, 16);
const GIF_16 = gif(16, 16);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8L'), Buffer.alloc(14)]);
const HTML = '<!doctype html><html><body><script>alert(1)</script></body></html>';

export const ICON_CASES: IconCase[] = [
  // Each allowed type, and the limits themselves.
  { name: 'a PNG (16x16)', icon: dataUrl('image/png', PNG_16), accept: same(dataUrl('image/png', PNG_16)) },
  { name: 'a JPEG (16x16, as the browser writes it)', icon: dataUrl('image/jpeg', JPEG_16), accept: same(dataUrl('image/jpeg', JPEG_16)) },
  { name: 'a GIF (16x16)', icon: dataUrl('image/gif', GIF_16), accept: same(dataUrl('image/gif', GIF_16)) },
  {
    name: 'an SVG (gradient, shapes, text, internal references)',
    icon: svgUrl(SVG_PLAIN),
    accept: safeSvg('viewBox="0 0 24 24"', 'fill="url(#g)"', 'xlink:href="#p"', 'rgb(232, 89, 12)', 'translate(0 1)', '>svc</text>'),
  },
  {
    name: 'an SVG without its namespace (as copied from a web page)',
    icon: svgUrl('<svg viewBox="0 0 24 24"><rect width="24" height="24" fill="#1c7ed6"/></svg>'),
    accept: safeSvg('<rect width="24"'),
  },
  { name: 'a PNG of exactly 256x256 pixels', icon: dataUrl('image/png', png(256, 256)), accept: same(dataUrl('image/png', png(256, 256))) },
  {
    name: 'a PNG of exactly 100 KB',
    icon: dataUrl('image/png', png(16, 16, { padTo: ICON_MAX_BYTES })),
    accept: same(dataUrl('image/png', png(16, 16, { padTo: ICON_MAX_BYTES }))),
  },

  // Wrong types.
  refused('a WebP image', dataUrl('image/webp', WEBP), 400, M.invalidImageType),
  refused('a BMP image', dataUrl('image/bmp', Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)])), 400, M.invalidImageType),
  refused('an ICO image', dataUrl('image/x-icon', Buffer.from([0, 0, 1, 0, 1, 0])), 400, M.invalidImageType),
  refused('an HTML page', dataUrl('text/html', HTML), 400, M.invalidFileType),
  refused('a PDF', dataUrl('application/pdf', '%PDF-1.7\n'), 400, M.invalidFileType),
  refused('a link to an image elsewhere', 'https://evil.example/icon.png', 400, M.invalidFileType),
  refused('a javascript: URL', 'javascript:alert(1)', 400, M.invalidFileType),
  refused('an SVG data URL that is not base64', `data:image/svg+xml,${encodeURIComponent(SVG_PLAIN)}`, 400, M.invalidImageType),
  refused('a data URL with a charset parameter', `data:image/png;charset=utf-8;base64,${PNG_16.toString('base64')}`, 400, M.invalidImageType),
  refused('an empty image', 'data:image/png;base64,', 400, M.invalidFileType),
  refused('a number', 42, 400, M.invalidFileType, /^This \.catalog file is invalid: .*expected string.* \(service\.icon_url\)$/),

  // Wrong magic bytes behind a right name.
  refused('a JPEG declared as PNG', dataUrl('image/png', JPEG_16), 400, M.invalidFileType),
  refused('a PNG declared as JPEG', dataUrl('image/jpeg', PNG_16), 400, M.invalidFileType),
  refused('a GIF declared as PNG', dataUrl('image/png', GIF_16), 400, M.invalidFileType),
  refused('an HTML page with script declared as GIF', dataUrl('image/gif', HTML), 400, M.invalidFileType),
  refused('an SVG with script declared as PNG', dataUrl('image/png', svg('<script>alert(1)</script>')), 400, M.invalidFileType),
  refused('a PNG declared as SVG', dataUrl('image/svg+xml', PNG_16), 400, M.invalidFileType),
  refused('an HTML page declared as SVG', dataUrl('image/svg+xml', HTML), 400, M.invalidFileType),
  refused('a PNG signature with no image header', dataUrl('image/png', PNG_16.subarray(0, 12)), 400, M.invalidFileType),
  refused(
    'a JPEG signature with no frame header',
    dataUrl('image/jpeg', Buffer.concat([JPEG_16.subarray(0, 20), Buffer.from([0xff, 0xda, 0, 2])])),
    400,
    M.invalidFileType,
  ),
  refused('a GIF signature with a cut header', dataUrl('image/gif', GIF_16.subarray(0, 8)), 400, M.invalidFileType),

  // Oversized: bytes, then pixels (a small file must not declare a huge picture).
  refused('a PNG of 100 KB and 1 byte', dataUrl('image/png', png(16, 16, { padTo: ICON_MAX_BYTES + 1 })), 413, fill(M.imageTooLarge, { size: 101 })),
  refused('a PNG of 140 KB', dataUrl('image/png', png(16, 16, { padTo: 140 * 1024 })), 413, fill(M.imageTooLarge, { size: 140 })),
  refused('a data URL four times longer than the limit', dataUrl('image/png', png(16, 16, { padTo: 420 * 1024 })), 400, ICON_TOO_LARGE, tooLong),
  refused('a request body over 1 MB', dataUrl('image/png', png(16, 16, { padTo: 900 * 1024 })), 413, 'The request body is too large', tooLong),
  refused('a PNG 257 pixels wide', dataUrl('image/png', png(257, 1)), 400, ICON_TOO_MANY_PIXELS),
  refused('a PNG 257 pixels high', dataUrl('image/png', png(1, 257)), 400, ICON_TOO_MANY_PIXELS),
  refused('a JPEG of 300x200 pixels', dataUrl('image/jpeg', JPEG_300x200), 400, ICON_TOO_MANY_PIXELS),
  refused('a GIF of 300x200 pixels', dataUrl('image/gif', gif(300, 200)), 400, ICON_TOO_MANY_PIXELS),
  refused('a pixel bomb: a 48 KB PNG of 20000x20000 pixels', dataUrl('image/png', png(20000, 20000, { bitDepth: 1 })), 400, ICON_TOO_MANY_PIXELS),
  refused('a GIF whose frame is larger than its screen', dataUrl('image/gif', gif(16, 16, { width: 5000, height: 5000 })), 400, ICON_TOO_MANY_PIXELS),

  // SVG with script: stored with the script removed.
  hostile(
    'an SVG with script elements',
    svg('<script>alert(1)</script><script xlink:href="https://evil.example/x.js"/><script type="text/ecmascript"><![CDATA[alert(2)]]></script>'),
  ),
  hostile(
    'an SVG with event handlers',
    svg('<circle r="4" onclick="alert(1)" onmouseover="alert(2)"/><g onfocusin="alert(3)"><rect width="1" height="1"/></g>', ' onload="alert(1)"'),
    '<circle r="4"',
  ),
  hostile('an SVG with a prefixed script element', svg('<svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(1)</svg:script>')),
  hostile(
    'an SVG with foreignObject',
    svg(
      '<foreignObject width="24" height="24"><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="javascript:alert(1)"></iframe><img src="x" onerror="alert(1)"/></body></foreignObject>',
    ),
  ),
  hostile(
    'an SVG with javascript: links and animated links',
    svg(
      '<a href="javascript:alert(1)"><text>x</text></a><a xlink:href="javascript:alert(2)"><rect width="1" height="1"/></a><animate attributeName="href" values="javascript:alert(3)"/><set attributeName="onclick" to="alert(4)"/>',
    ),
  ),
  hostile(
    'an SVG with a style element and style attributes',
    svg(
      '<style>@import url(https://evil.example/a.css);rect{fill:url(https://evil.example/b.svg#p)}</style><rect style="fill:url(https://evil.example/c)" width="2" height="2"/>',
    ),
  ),

  // SVG with external references: stored without them.
  hostile(
    'an SVG with external images',
    svg('<image href="https://evil.example/p.png" width="24" height="24"/><image xlink:href="http://evil.example/q.png"/><image href="file:///etc/passwd"/>'),
  ),
  hostile(
    'an SVG using other files',
    svg('<use href="https://evil.example/sprite.svg#icon"/><use xlink:href="sprite.svg#icon"/><use href="//evil.example/s.svg#i"/><use href="#ok"/>'),
    '<use href="#ok"',
  ),
  hostile(
    'an SVG with url() to other files in presentation attributes',
    svg(
      `<rect width="4" height="4" fill="url(https://evil.example/p.svg#g)" filter="url('sprite.svg#f')" mask="url(&quot;//evil.example/m&quot;)" clip-path="url(#c)"/>`,
    ),
    'clip-path="url(#c)"',
  ),
  hostile(
    'an SVG hiding references behind CSS escapes and entities',
    svg(
      '<rect width="4" height="4" fill="\\75 rl(https://evil.example/a)"/><rect fill="u\\rl(https://evil.example/b)"/><rect fill="u&#114;l(https://evil.example/c)"/><use href="&#104;ttps://evil.example/d.svg#x"/>',
    ),
  ),
  hostile('an SVG with other fetching functions', svg(`<rect fill="image-set('https://evil.example/a.png' 1x)"/><rect fill="src(https://evil.example/b)"/>`)),
  hostile(
    'an SVG with data: URLs',
    svg(
      '<use href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=#x"/><image href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"/><rect fill="url(data:image/png;base64,AAAA)"/>',
    ),
  ),
  hostile(
    'an SVG with filter images and font files',
    svg(
      '<filter id="f"><feImage href="https://evil.example/p.png"/></filter><font-face><font-face-src><font-face-uri xlink:href="https://evil.example/f.svg#x"/></font-face-src></font-face>',
    ),
    '<filter id="f"',
  ),
  hostile(
    'an SVG with a stylesheet instruction, xml:base and XInclude inside',
    svg(
      '<?xml-stylesheet href="https://evil.example/x.css"?><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd"/>',
      ' xml:base="https://evil.example/"',
    ),
  ),
  hostile('an SVG declaring another namespace as its own', svg('').replace('xmlns="http://www.w3.org/2000/svg"', 'xmlns="http://www.w3.org/1999/xhtml"')),

  // SVG that is not a plain svg document: refused.
  refused(
    'an SVG declaring entities (XXE, billion laughs)',
    svgUrl(
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>' +
        svg('<text>&xxe;&b;</text>'),
    ),
    400,
    M.invalidFileType,
  ),
  refused(
    'an SVG with a stylesheet instruction before the root',
    svgUrl(`<?xml version="1.0"?><?xml-stylesheet href="https://evil.example/x.css"?>${svg('')}`),
    400,
    M.invalidFileType,
  ),
  refused('an SVG that is not well formed', svgUrl('<svg/onload=alert(1)>'), 400, M.invalidFileType),
];
