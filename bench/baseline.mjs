// The machine's own limit: a bare node:http server answering bytes held in memory.
// Usage: node bench/baseline.mjs <port> <file>...; GET /<n> answers file n (index from 0) as JSON,
// with Content-Encoding: gzip when the file name ends in .gz.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const [port, ...files] = process.argv.slice(2);
const bodies = files.map((f) => ({ bytes: readFileSync(f), gzip: f.endsWith('.gz') }));
createServer((req, res) => {
  const body = bodies[Number(req.url.slice(1))];
  if (!body) {
    res.writeHead(404).end();
    return;
  }
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.bytes.length };
  if (body.gzip) headers['content-encoding'] = 'gzip';
  res.writeHead(200, headers).end(body.bytes);
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
