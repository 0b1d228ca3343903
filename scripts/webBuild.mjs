import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

export const root = new URL('..', import.meta.url).pathname;
const builtIndex = join(root, 'dist/web/index.html');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** True when dist/web (or the build in outDir) is missing or older than the web app's sources. */
export function webBuildIsStale(outDir) {
  const index = outDir ? join(outDir, 'index.html') : builtIndex;
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  const sources = Math.max(newestMtime(join(root, 'web')), newestMtime(join(root, 'common')), statSync(join(root, 'vite.config.ts')).mtimeMs);
  return sources > built;
}

export function buildWeb(outDir) {
  console.log('Building the web app (vite build)...');
  const extra = outDir ? ['--outDir', outDir] : [];
  const res = spawnSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn', ...extra], {
    cwd: root,
    stdio: 'inherit',
  });
  if (res.status !== 0) {
    console.error('The web app failed to build.');
    process.exit(res.status ?? 1);
  }
}
