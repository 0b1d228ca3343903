// The machine's own limit: a bare node:http server answering bytes held in memory.
// Usage: node bench/baseline.mjs <port> <file>...; GET /<n> answers file n (index from 0) as JSON,
// with Content-Encoding: gzip when the file name ends in .gz. GET /h<n> answers the same bytes with
// the headers in <file>.headers.json (the product's own response headers) instead.
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';

const [port, ...files] = process.argv.slice(2);
const bodies = files.map((f) => ({
  bytes: readFileSync(f),
  gzip: f.endsWith('.gz'),
  headers: existsSync(`${f}.headers.json`) ? JSON.parse(readFileSync(`${f}.headers.json`, 'utf8')) : null,
}));
createServer((req, res) => {
  const same = req.url.startsWith('/h');
  const body = bodies[Number(req.url.slice(same ? 2 : 1))];
  if (!body || (same && !body.headers)) {
    res.writeHead(404).end();
    return;
  }
  const headers = same ? { ...body.headers } : { 'content-type': 'application/json; charset=utf-8' };
  headers['content-length'] = body.bytes.length;
  if (body.gzip && !same) headers['content-encoding'] = 'gzip';
  res.writeHead(200, headers).end(body.bytes);
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
