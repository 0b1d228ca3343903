import { Parser } from 'htmlparser2';
import { RICH_TEXT_TAGS, SAFE_URL_SCHEMES } from '../../../common/richText';
import { PUBLIC_STYLE } from '../../presenters/publicPages';
import { decodeEntities } from './xssCheck';

/**
 * A strict check of a whole public page (server/presenters/publicPages.ts): answers every construct
 * in it that could run script. The page's own elements and the rich-text allow-list are the only
 * tags; no event handler, no style attribute, no script; links are relative to this site or use
 * http, https or mailto; images are data:image addresses; the one style sheet is the page's own.
 */
const PAGE_TAGS = new Set([
  'html',
  'head',
  'meta',
  'title',
  'link',
  'style',
  'body',
  'header',
  'main',
  'footer',
  'section',
  'h1',
  'h2',
  'p',
  'span',
  'div',
  'strong',
  'i',
  'del',
  'ins',
  'time',
  'img',
  'ul',
  'ol',
  'li',
  'dl',
  'dt',
  'dd',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  ...RICH_TEXT_TAGS,
]);
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc', 'srcset', 'background', 'poster', 'content']);

function unsafeUrl(attr: string, raw: string, tag: string): boolean {
  // eslint-disable-next-line no-control-regex -- the control characters browsers drop are removed first
  const url = decodeEntities(raw).replace(/[\u0000-\u0020\u007f-\u00a0\u200b\ufeff]/g, '');
  if (tag === 'img' && attr === 'src') return !/^data:image\/(png|jpe?g|gif|svg\+xml|webp);base64,/i.test(url);
  if (url.startsWith('//') || url.startsWith('\\') || url.startsWith('/\\')) return true;
  if (url.startsWith('/')) return false;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  // Without a scheme it is a path or fragment of this site (a percent-encoded "javascript" is a path).
  if (!scheme) return /^(javascript|data|vbscript|livescript)/i.test(url);
  return !(SAFE_URL_SCHEMES as readonly string[]).includes(scheme);
}

export function pageExecutableConstructs(html: string): string[] {
  const found: string[] = [];
  let styles = 0;
  let inStyle = false;
  let styleText = '';
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (!PAGE_TAGS.has(name)) found.push(`tag <${name}>`);
        if (name === 'script') found.push('script tag');
        if (name === 'style') {
          styles++;
          inStyle = true;
          styleText = '';
        }
        for (const [attr, value] of Object.entries(attrs)) {
          if (/^on/i.test(attr)) found.push(`event handler ${attr} on <${name}>`);
          if (attr === 'style') found.push(`style attribute on <${name}>`);
          if (name === 'meta' && attr === 'http-equiv') found.push('meta http-equiv');
          if (URL_ATTRIBUTES.has(attr) && name !== 'meta' && unsafeUrl(attr, value, name)) found.push(`unsafe ${attr} on <${name}>: ${value.slice(0, 60)}`);
        }
      },
      ontext(text) {
        if (inStyle) styleText += text;
      },
      onclosetag(name) {
        if (name === 'style') {
          inStyle = false;
          if (styleText !== PUBLIC_STYLE) found.push('a style sheet that is not the page’s own');
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  if (styles !== 1) found.push(`${styles} style sheets`);
  return found;
}
