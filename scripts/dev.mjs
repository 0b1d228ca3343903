// npm run dev: the API server (restarted on change by tsx watch) and Vite's dev server side by side.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from './webBuild.mjs';

const children = [
  spawn(process.execPath, ['--import', 'tsx', '--watch', 'server/main.ts'], { cwd: root, stdio: 'inherit', env: { ...process.env, SKIP_WEB_BUILD: '1' } }),
  spawn(process.execPath, [join(root, 'node_modules/vite/bin/vite.js')], { cwd: root, stdio: 'inherit' }),
];
const stop = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
