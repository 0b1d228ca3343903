// npm start: builds the web app when it is missing or out of date, then runs the server in this process.
import { buildWeb, webBuildIsStale } from './webBuild.mjs';
import { register } from 'tsx/esm/api';

if (process.env.SKIP_WEB_BUILD !== '1' && webBuildIsStale()) buildWeb();
register();
await import('../server/main.ts');
