/** Shared by the two no-op servers: announce the address once listening, exit on SIGTERM / SIGINT. */
import type { Server } from 'node:http';

export function listenOnLoopback(server: Server): void {
  server.once('listening', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.stdout.write(`listening http://127.0.0.1:${port}\n`);
  });
  server.once('error', (error) => {
    process.stderr.write(`no-op server failed: ${error.message}\n`);
    process.exit(1);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
