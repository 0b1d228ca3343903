import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every dependency package.json declares is used: a library sits beside no hand-made part doing its
 * work while nothing imports it (docs/decisions/0180-hand-made-parts-beside-libraries.md).
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_FOLDERS = ['server', 'web', 'common', 'scripts', 'bench', 'e2e'];
const SOURCE_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  scripts?: Record<string, string>;
  bin?: string | Record<string, string>;
}

interface Project {
  manifest: Manifest;
  /** The text of every source file. */
  sources: string[];
  /** A declared package's own package.json. */
  manifestOf: (name: string) => Manifest;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The commands a package puts on the PATH of npm scripts. */
function binNames(name: string, manifest: Manifest): string[] {
  if (!manifest.bin) return [];
  if (typeof manifest.bin === 'string') return [name.replace(/^@[^/]+\//, '')];
  return Object.keys(manifest.bin);
}

/**
 * The declared dependencies used nowhere. A package counts as used when a source file names it as
 * a module (`'name'` or `'name/sub/path'` in quotes: an import, a require, a dynamic import, a
 * `--import` flag), when an npm script runs one of its commands, when another declared package
 * needs it as a (not optional) peer, or, for `@types/x`, when `x` is declared (`@types/node`: Node).
 * Tooling is covered by its commands in the npm scripts (`tsc`, `eslint`, `prettier`, `vite`,
 * `drizzle-kit`) and its config files at the root (`vite.config.ts`, `eslint.config.js`, ...);
 * a package used some other way needs a rule here, not an exception.
 */
function unusedDependencies({ manifest, sources, manifestOf }: Project): string[] {
  const declared = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
  const text = sources.join('\n');
  const scripts = Object.values(manifest.scripts ?? {}).join('\n');
  const peers = new Set<string>();
  for (const name of declared) {
    const own = manifestOf(name);
    for (const peer of Object.keys(own.peerDependencies ?? {})) if (!own.peerDependenciesMeta?.[peer]?.optional) peers.add(peer);
  }
  const used = (name: string): boolean => {
    if (new RegExp(`['"\`]${escaped(name)}(/[^'"\`]*)?['"\`]`).test(text)) return true;
    if (binNames(name, manifestOf(name)).some((bin) => new RegExp(`(^|[\\s&|;])${escaped(bin)}(\\s|$)`, 'm').test(scripts))) return true;
    if (peers.has(name)) return true;
    const typed = /^@types\/(.+)$/.exec(name)?.[1];
    if (typed) return typed === 'node' || declared.includes(typed.includes('__') ? `@${typed.replace('__', '/')}` : typed);
    return false;
  };
  return declared.filter((name) => !used(name)).sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return SOURCE_FILE.test(entry) ? [path] : [];
  });
}

function readJson(path: string): Manifest {
  return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
}

describe('the declared dependencies', () => {
  it('are each used by the code, an npm script or another dependency', () => {
    const configFiles = readdirSync(root).filter((entry) => SOURCE_FILE.test(entry));
    // This file names packages in its examples; it does not use them.
    const files = [...SOURCE_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder))), ...configFiles.map((file) => join(root, file))].filter(
      (file) => file !== fileURLToPath(import.meta.url),
    );
    const project: Project = {
      manifest: readJson(join(root, 'package.json')),
      sources: files.map((file) => readFileSync(file, 'utf8')),
      manifestOf: (name) => readJson(join(root, 'node_modules', name, 'package.json')),
    };
    expect(unusedDependencies(project)).toEqual([]);
  });

  it('names a declared package that nothing imports, runs or needs', () => {
    const manifests: Record<string, Manifest> = {
      'kept-lib': {},
      'kept-lib-peer': {},
      '@scope/editor': { peerDependencies: { 'kept-lib-peer': '1', 'optional-peer': '1' }, peerDependenciesMeta: { 'optional-peer': { optional: true } } },
      'optional-peer': {},
      'a-tool': { bin: { 'run-tool': 'cli.js' } },
      '@types/kept-lib': {},
      '@types/gone': {},
      'virtual-rows': {},
      'virtual-rows-cli': { bin: 'cli.js' },
    };
    const project: Project = {
      manifest: {
        dependencies: { 'kept-lib': '1', 'kept-lib-peer': '1', '@scope/editor': '1', 'optional-peer': '1', 'virtual-rows': '1', 'virtual-rows-cli': '1' },
        devDependencies: { 'a-tool': '1', '@types/kept-lib': '1', '@types/gone': '1' },
        scripts: { check: 'run-tool --fix && echo virtual-rows-cli-not-a-command' },
      },
      sources: [`import { x } from 'kept-lib/sub';\nimport Editor from "@scope/editor";\n// virtual-rows is only mentioned here`],
      manifestOf: (name) => manifests[name]!,
    };
    expect(unusedDependencies(project)).toEqual(['@types/gone', 'optional-peer', 'virtual-rows', 'virtual-rows-cli']);
  });
});
