import { describe, expect, it } from 'vitest';
import { RICH_TEXT_TAGS } from '../../common/richText';
import { XSS_CORPUS } from '../test/security/xssCorpus';
import { generator } from '../test/generator';
import { parseAndSanitise, quickSanitise, sanitizeRichText } from './sanitize';

/** Every allowed tag but the empty ones and the link, and a few the allow-list leaves out. */
const TAGS = [...RICH_TEXT_TAGS.filter((t) => t !== 'a' && t !== 'br' && t !== 'hr'), 'div', 'script', 'P', 'table', 'td'];
const TEXT = [
  'plain',
  'two words',
  ' ',
  '  ',
  '\n',
  '\t',
  '\r',
  '&amp;',
  '&lt;',
  '&gt;',
  '&quot;',
  '&#39;',
  '&nbsp;',
  '&',
  '&amp',
  '"',
  "'",
  '=',
  'é ü 漢',
  '\u00a0',
  '\u0000',
  '\u200b',
  '>',
  '<',
  '<!-- note -->',
  '<![CDATA[x]]>',
  '/',
  '`',
];
const LINKS = [
  '<a href="https://example.org/help/1" target="_blank" rel="noopener noreferrer">',
  '<a href="http://example.org/a?b=1;c=2#d" target="_blank" rel="noopener noreferrer">',
  '<a href="mailto:someone@example.org" target="_blank" rel="noopener noreferrer">',
  '<a href="https://example.org/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">',
  '<a href="javascript:alert(1)" target="_blank" rel="noopener noreferrer">',
  '<a href="/relative" target="_blank" rel="noopener noreferrer">',
  '<a href="https://example.org/" rel="noopener noreferrer" target="_blank">',
  '<a href="https://example.org/">',
  '<a href="https://example.org/" title="t" target="_blank" rel="noopener noreferrer">',
  '<a href="https://example.org/" target="_blank" rel="noopener noreferrer" onclick="x()">',
];
const VOID = ['<br />', '<br>', '<br/>', '<hr />', '<hr>', '<img src=x onerror=alert(1)>', '<br class="x" />'];

/** The pieces of values in the sanitiser's own form (their nesting aside). */
const CLEAN = {
  tags: TAGS.filter((t) => !['div', 'script', 'P', 'table', 'td'].includes(t)),
  text: ['plain', 'two words', ' ', '\n', '\t', '&amp;', '&lt;', '&gt;', '"', "'", '=', 'é ü 漢', '\u00a0', '\u200b', '/', '`'],
  links: [...LINKS.slice(0, 3), '<a href="https://example.org/help/2">', '<a href="mailto:a@example.org">'],
  void: ['<br />', '<hr />', '<br>', '<hr>'],
};
const ALL = { tags: TAGS, text: TEXT, links: LINKS, void: VOID };

/** A value built like rich text: of clean pieces (nested any way), or of any pieces, each flaw now and then. */
function richValue(pick: ReturnType<typeof generator>, pieces = pick([CLEAN, CLEAN, ALL]), depth = 0): string {
  let out = '';
  const parts = 1 + pick([0, 1, 2, 3]);
  for (let i = 0; i < parts; i++) {
    const kind = pick(['text', 'text', 'tag', 'tag', 'tag', 'link', 'void', pieces === ALL ? 'stray' : 'text']);
    if (kind === 'text') out += pick(pieces.text) + pick(pieces.text);
    else if (kind === 'void') out += pick(pieces.void);
    else if (kind === 'stray') out += pick(['</p>', '</li>', '<li>', '<p>', '</a>', '<ul>', '<strong>']);
    else if (depth < 4) {
      const inner = richValue(pick, pieces, depth + 1);
      if (kind === 'link') out += `${pick(pieces.links)}${inner}</a>`;
      else {
        const tag = pick(pieces.tags);
        out += `<${tag}>${inner}</${pieces === CLEAN ? tag : pick([tag, tag, tag, 'p', 'li'])}>`;
      }
    }
  }
  return pick([out, out, out.trim()]);
}

describe('sanitizeRichText', () => {
  it('works out what the sanitiser answers, for every value it works out, on 30,000 generated values', () => {
    const pick = generator(20261128);
    let worked = 0;
    for (let n = 0; n < 30_000; n++) {
      const value = richValue(pick);
      const quick = quickSanitise(value);
      if (quick === null) continue;
      worked++;
      expect(quick, JSON.stringify(value)).toBe(parseAndSanitise(value));
    }
    // Enough of them are worked out that the comparison means something.
    expect(worked).toBeGreaterThan(5_000);
  });

  it('answers what the sanitiser answers for every value of the hostile corpus, and for its sanitised forms', () => {
    for (const payload of XSS_CORPUS) {
      const clean = parseAndSanitise(payload);
      expect(sanitizeRichText(payload), payload).toBe(clean);
      expect(sanitizeRichText(clean), clean).toBe(parseAndSanitise(clean));
    }
  });

  it('works out plain rich text, as written or as the sanitiser writes it, and sends anything else to the sanitiser', () => {
    const raw = '<p>Plans <b>and</b> <a href="https://example.org/x">help</a></p><ul><li>one &amp; two</li></ul><p>a<br>b</p>';
    const written =
      '<p>Plans <b>and</b> <a href="https://example.org/x" target="_blank" rel="noopener noreferrer">help</a></p><ul><li>one &amp; two</li></ul><p>a<br />b</p>';
    expect(parseAndSanitise(raw)).toBe(written);
    expect(quickSanitise(raw)).toBe(written);
    expect(quickSanitise(written)).toBe(written);
    for (const value of [
      '<p>x<ul><li>y</li></ul></p>',
      '<ul><li>a<li>b</li></ul>',
      '<p>x',
      '<p>x</li>',
      '<P>x</P>',
      '<p class="c">x</p>',
      '<p>a &quot;b&quot;</p>',
      '<p>a&nbsp;b</p>',
      '<p>1 > 0</p>',
      '<a href="javascript:alert(1)">x</a>',
      '<a href="/relative">x</a>',
      '<a href="https://example.org/" title="t">x</a>',
      '<img src=x onerror=alert(1)>',
      '<p>x</p><!-- c -->',
    ]) {
      expect(quickSanitise(value), value).toBeNull();
      expect(sanitizeRichText(value), value).toBe(parseAndSanitise(value));
    }
  });
});
