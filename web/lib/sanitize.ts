import { RICH_TEXT_ATTRIBUTES, RICH_TEXT_TAGS, SAFE_URL_SCHEMES } from '../../common/richText';

const ALLOWED_TAGS = new Set<string>(RICH_TEXT_TAGS);

function safeHref(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v.startsWith('#') || v.startsWith('/')) return !v.startsWith('//');
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(v)?.[1];
  return scheme ? (SAFE_URL_SCHEMES as readonly string[]).includes(scheme) : true;
}

/**
 * Browser-side allow-list sanitiser built on the inert DOMParser document: unknown elements are
 * unwrapped (their text kept), dangerous ones dropped with their content, every attribute outside
 * the allow-list removed, and links forced to safe schemes with rel="noopener noreferrer".
 */
export function sanitizeForDisplay(html: string): string {
  if (!html) return '';
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  const walk = (node: Element) => {
    for (const child of Array.from(node.children)) {
      const tag = child.tagName.toLowerCase();
      if (!ALLOWED_TAGS.has(tag)) {
        if (['script', 'style', 'iframe', 'object', 'embed', 'svg', 'math', 'template', 'noscript', 'textarea', 'select', 'title'].includes(tag)) {
          child.remove();
        } else {
          walk(child);
          child.replaceWith(...Array.from(child.childNodes));
        }
        continue;
      }
      const allowedAttrs = RICH_TEXT_ATTRIBUTES[tag] ?? [];
      for (const attr of Array.from(child.attributes)) {
        if (!allowedAttrs.includes(attr.name.toLowerCase())) child.removeAttribute(attr.name);
      }
      if (tag === 'a') {
        const href = child.getAttribute('href');
        if (href && !safeHref(href)) child.removeAttribute('href');
        child.setAttribute('rel', 'noopener noreferrer');
        child.setAttribute('target', '_blank');
      }
      walk(child);
    }
  };
  walk(doc.body);
  return doc.body.innerHTML;
}
