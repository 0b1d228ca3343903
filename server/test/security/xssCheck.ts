import { RICH_TEXT_ATTRIBUTES, RICH_TEXT_TAGS, SAFE_URL_SCHEMES } from '../../../common/richText';

/**
 * A strict check of sanitised rich text: answers every construct in it that could run script.
 * Every tag must be on the rich-text allow-list with only its allowed attributes, no event handler,
 * no link to a scheme other than http, https and mailto (after decoding entities and dropping the
 * whitespace and control characters browsers ignore), and no `<` outside a tag.
 */
const ALLOWED_TAGS = new Set<string>(RICH_TEXT_TAGS);
const FORBIDDEN_TAG =
  /<\s*\/?\s*(script|iframe|object|embed|svg|math|style|base|meta|form|link|template|noscript|frame|frameset|applet|portal|img|image|input|button|textarea|select|video|audio|source|xmp|plaintext|noembed|noframes|listing|title|isindex|keygen|marquee|details)\b/i;
const TAG = /<(\/?)([a-zA-Z][^\s/>]*)([^>]*)>/g;
const ATTRIBUTE = /([^\s"'=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const URL_OR_CODE_ATTRIBUTES = new Set(['src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc', 'style', 'srcset', 'background', 'poster']);
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const NAMED: Record<string, string> = {
  colon: ':',
  tab: '\t',
  newline: '\n',
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  sol: '/',
  lpar: '(',
  rpar: ')',
};

/** Decodes numeric and the relevant named character references, as a browser does in an attribute. */
export function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : '';
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

function unsafeUrl(raw: string): boolean {
  // Browsers drop control characters and whitespace inside and around a scheme.
  // eslint-disable-next-line no-control-regex -- the control characters are what is removed
  const url = decodeEntities(raw).replace(/[\u0000-\u0020\u007f-\u00a0\u200b\ufeff]/g, '');
  if (url.startsWith('//') || url.startsWith('\\\\') || url.startsWith('/\\')) return true;
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme) return !(SAFE_URL_SCHEMES as readonly string[]).includes(scheme);
  return /^(javascript|data|vbscript|livescript)/i.test(url);
}

export function executableConstructs(html: string): string[] {
  const found: string[] = [];
  if (/<\s*script/i.test(html)) found.push('script tag');
  const forbidden = FORBIDDEN_TAG.exec(html);
  if (forbidden) found.push(`forbidden tag <${forbidden[1]}>`);
  const outside = html.replace(TAG, '');
  if (outside.includes('<')) found.push('unescaped < outside a tag');
  for (const [, , rawName, attrs] of html.matchAll(TAG)) {
    const tag = rawName.toLowerCase();
    if (!ALLOWED_TAGS.has(tag)) found.push(`tag <${tag}> not on the allow-list`);
    const allowed = RICH_TEXT_ATTRIBUTES[tag] ?? [];
    for (const [, rawAttr, dq, sq, bare] of attrs.matchAll(ATTRIBUTE)) {
      const attr = rawAttr.toLowerCase();
      const value = dq ?? sq ?? bare ?? '';
      if (/^on/.test(attr)) found.push(`event handler ${attr}`);
      if (!allowed.includes(attr)) found.push(`attribute ${attr} on <${tag}>`);
      if (URL_OR_CODE_ATTRIBUTES.has(attr)) found.push(`attribute ${attr} carries a URL, code or style`);
      if (attr === 'href' && unsafeUrl(value)) found.push(`unsafe link ${value.slice(0, 60)}`);
    }
  }
  return found;
}
