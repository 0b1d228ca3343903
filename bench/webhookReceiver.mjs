/**
 * The webhooks bench's receiver (bench/webhooks.ts), in a process of its own as a real receiver
 * is: answers 200 at once and tells its parent, for each delivery, when it arrived (on the
 * clock both processes share) and which aspects' cells it carried.
 */
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c.toString()));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    let aspects = [];
    try {
      aspects = (JSON.parse(body).data.cells ?? []).map((cell) => String(cell.aspect_id));
    } catch {
      // not a delivery of the bench's
    }
    res.end('ok');
    process.send({ type: 'delivery', at, aspects });
  });
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
process.on('disconnect', () => process.exit(0));
