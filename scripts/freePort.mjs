import { createServer } from 'node:net';

/**
 * A TCP port free on 127.0.0.1, chosen by the system: a port picked at random from a fixed range
 * can be one another service of the machine listens on (a database, a broker).
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
