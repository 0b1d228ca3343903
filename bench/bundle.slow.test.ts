/**
 * Bundle budget: the JavaScript the login page loads (index.html's entry script and everything it
 * imports statically) stays within 250 KB gzip, and the heavy screens (catalog, settings, admin,
 * the rich-text editor) are left to chunks loaded on demand. Builds into a temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'vite';

const LOGIN_JS_BUDGET_BYTES = 250 * 1024;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Modules that must never be part of the login page's static graph. */
const ON_DEMAND = [
  ['web', 'pages', 'Catalog'].join(sep),
  ['web', 'pages', 'ServiceSettings'].join(sep),
  ['web', 'pages', 'SuperAdmin'].join(sep),
  ['web', 'pages', 'TenantSettings'].join(sep),
  ['web', 'components', 'RichTextEditor'].join(sep),
  `${sep}@tiptap${sep}`,
  `${sep}@mantine${sep}tiptap${sep}`,
];

interface Chunk {
  type: 'chunk';
  fileName: string;
  code: string;
  isEntry: boolean;
  imports: string[];
  moduleIds: string[];
  /** Each module's size before minification. */
  modules: Record<string, { renderedLength: number }>;
}

let outDir: string;
const staticChunks: Chunk[] = [];
let allChunks: Chunk[] = [];

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'catalog-bundle-'));
  // The test runner sets NODE_ENV=test, which would give the libraries' development builds.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  let result;
  try {
    result = await build({
      configFile: join(ROOT, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'silent',
      build: { outDir, emptyOutDir: true, write: false },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  const outputs = (Array.isArray(result) ? result : [result]) as { output: (Chunk | { type: 'asset' })[] }[];
  allChunks = outputs.flatMap((o) => o.output.filter((c): c is Chunk => c.type === 'chunk'));
  const byName = new Map(allChunks.map((c) => [c.fileName, c]));
  const entry = allChunks.find((c) => c.isEntry);
  if (!entry) throw new Error('the build has no entry chunk');
  const seen = new Set<string>();
  const visit = (c: Chunk) => {
    if (seen.has(c.fileName)) return;
    seen.add(c.fileName);
    staticChunks.push(c);
    for (const name of c.imports) {
      const next = byName.get(name);
      if (next) visit(next);
    }
  };
  visit(entry);
}, 600_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** The heaviest packages and app folders of the login page's chunks, to say what to make lazy. */
function largestParts(): string {
  const sizes = new Map<string, number>();
  for (const chunk of staticChunks) {
    for (const [id, info] of Object.entries(chunk.modules)) {
      const inPackage = id.split(`node_modules${sep}`).pop()!;
      const key = id.includes(`node_modules${sep}`)
        ? inPackage
            .split(sep)
            .slice(0, inPackage.startsWith('@') ? 2 : 1)
            .join('/')
        : id.slice(ROOT.length).split(sep).slice(0, 3).join('/');
      sizes.set(key, (sizes.get(key) ?? 0) + info.renderedLength);
    }
  }
  return [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([name, bytes]) => `${name} ${Math.round(bytes / 1024)} KB`)
    .join(', ');
}

describe('web bundle budget', () => {
  it('keeps the JavaScript of the login page within 250 KB gzip', () => {
    const gzipBytes = staticChunks.reduce((sum, c) => sum + gzipSync(c.code).length, 0);
    expect(gzipBytes).toBeGreaterThan(0);
    expect(gzipBytes, `login page JavaScript: ${Math.round(gzipBytes / 1024)} KB gzip; largest parts: ${largestParts()}`).toBeLessThanOrEqual(
      LOGIN_JS_BUDGET_BYTES,
    );
  });

  it('loads the catalog, settings and admin screens and the rich-text editor on demand', () => {
    const loadedUpFront = staticChunks.flatMap((c) => c.moduleIds).filter((id) => ON_DEMAND.some((part) => id.includes(part)));
    expect(loadedUpFront).toEqual([]);
    // Each of them exists somewhere in the build, in a chunk of its own.
    const everywhere = allChunks.flatMap((c) => c.moduleIds);
    for (const part of ON_DEMAND.slice(0, 5)) expect(everywhere.some((id) => id.includes(part))).toBe(true);
  });
});
