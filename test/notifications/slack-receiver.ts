import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Slack's incoming webhooks on 127.0.0.1: it keeps every POST it gets (the JSON body's
 * text) and answers with the status the test sets (200 `ok` by default), after an optional delay. Its URL
 * has a secret path like Slack's, for tests to check it never shows up where it must not.
 */
export interface SlackReceiver {
  /** http://127.0.0.1:<port>/services/T…/B…/<secret> */
  url: string;
  /** The URL's last segment: the part that makes it a secret. */
  secret: string;
  posts: Array<{ path: string; text: string }>;
  /** What the next answers are (default 200). */
  status: number;
  /** How long each answer waits (default 0). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startSlackReceiver(): Promise<SlackReceiver> {
  const secret = randomBytes(12).toString('hex');
  const receiver: Omit<SlackReceiver, 'url' | 'close'> = { secret, posts: [], status: 200, delayMs: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let text = '';
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text?: unknown };
        text = typeof body.text === 'string' ? body.text : '';
      } catch {
        text = '';
      }
      receiver.posts.push({ path: req.url ?? '', text });
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(receiver.status, { 'content-type': 'text/plain' });
        res.end(receiver.status < 300 ? 'ok' : 'no_service');
      };
      if (receiver.delayMs > 0) setTimeout(answer, receiver.delayMs);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/services/T0TEST/B0TEST/${secret}`,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  });
}
