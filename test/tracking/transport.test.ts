import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transportCause } from '../../src/tracking/classify.js';
import { httpTransport, type Transport } from '../../src/tracking/transport.js';

/**
 * The app's transport to the tracking service (node:http on kept-alive connections) against a real local
 * server: what it sends, what it reads, its bound, its one timeout over the whole exchange, and what it
 * throws when the network fails (read by transportCause as the retry logic needs).
 */

let server: http.Server;
let base: string;
let connectionsSeen = 0;
let connectionsOpen = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => route(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket) => {
    connectionsSeen++;
    connectionsOpen++;
    socket.on('close', () => connectionsOpen--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function route(req: http.IncomingMessage, res: http.ServerResponse, body: string) {
  const url = new URL(req.url!, base);
  switch (url.pathname) {
    case '/echo':
      res.setHeader('content-type', 'application/json');
      res.setHeader('retry-after', '7');
      res.setHeader('link', ['<a>; rel="x"', '<b>; rel="y"']);
      res.end(JSON.stringify({ method: req.method, headers: req.headers, body }));
      return;
    case '/utf8': {
      // A multi-byte character split across two chunks.
      const bytes = Buffer.from('{"city":"Zürich ✓"}', 'utf8');
      res.write(bytes.subarray(0, 11));
      setTimeout(() => res.end(bytes.subarray(11)), 20);
      return;
    }
    case '/declared-large':
      res.setHeader('content-length', String(10 * 1024 * 1024));
      res.write('x'.repeat(1024));
      return; // never finished: the client must not wait for it
    case '/endless': {
      const tick = () => {
        if (res.destroyed) return;
        res.write('y'.repeat(16 * 1024), () => setImmediate(tick));
      };
      tick();
      return;
    }
    case '/slow-headers':
      setTimeout(() => res.end('{}'), 2_000).unref();
      return;
    case '/slow-body':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
      setTimeout(() => res.end('1}'), 2_000).unref();
      return;
    case '/cut':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    default:
      res.statusCode = 404;
      res.end();
  }
}

const limits = { timeoutMs: 2_000, maxResponseBytes: 64 * 1024 };

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the exchange to fail');
}

describe('httpTransport', () => {
  const send: Transport = httpTransport({ maxSockets: 4 });

  it('sends the method, headers and body as given, and reads status, headers and body', async () => {
    const answer = await send(
      {
        method: 'POST',
        url: `${base}/echo`,
        headers: { 'content-type': 'application/json', 'service-api-key': 'k-1', 'app-name': 'Ünï store' },
        body: JSON.stringify({ tracking_number: 'Ä1' }),
      },
      limits,
    );
    expect(answer.status).toBe(200);
    expect(answer.header('Retry-After')).toBe('7');
    expect(answer.header('link')).toBe('<a>; rel="x", <b>; rel="y"');
    expect(answer.header('sunset')).toBeNull();
    const echoed = JSON.parse((answer.body as { text: string }).text);
    expect(echoed.method).toBe('POST');
    expect(echoed.body).toBe('{"tracking_number":"Ä1"}');
    expect(echoed.headers['content-length']).toBe(String(Buffer.byteLength(echoed.body)));
    expect(echoed.headers['service-api-key']).toBe('k-1');
  });

  it('decodes UTF-8 split across chunks', async () => {
    const answer = await send({ method: 'GET', url: `${base}/utf8`, headers: {} }, limits);
    expect(answer.body).toEqual({ text: '{"city":"Zürich ✓"}' });
  });

  it('keeps connections alive and opens no more than maxSockets however many calls are out', async () => {
    const own = httpTransport({ maxSockets: 4 });
    const before = connectionsSeen;
    await Promise.all(
      Array.from({ length: 200 }, () => own({ method: 'GET', url: `${base}/echo`, headers: {} }, limits)),
    );
    for (let i = 0; i < 50; i++) await own({ method: 'GET', url: `${base}/echo`, headers: {} }, limits);
    expect(connectionsSeen - before).toBeLessThanOrEqual(4);
    expect(connectionsSeen - before).toBeGreaterThan(0);
  });

  it('closes a connection left idle for idleSocketMs (before a server would close it under a new request)', async () => {
    const own = httpTransport({ maxSockets: 2, idleSocketMs: 100 });
    server.closeAllConnections();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const open = connectionsOpen;
    await own({ method: 'GET', url: `${base}/echo`, headers: {} }, limits);
    expect(connectionsOpen).toBe(open + 1);
    for (let i = 0; i < 50 && connectionsOpen > open; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(connectionsOpen).toBe(open);
  });

  it('does not read an answer past the bound: declared too long, or streamed without end', async () => {
    const declared = await send({ method: 'GET', url: `${base}/declared-large`, headers: {} }, limits);
    expect(declared).toMatchObject({ status: 200, body: { oversize: true } });
    const endless = await send({ method: 'GET', url: `${base}/endless`, headers: {} }, limits);
    expect(endless).toMatchObject({ status: 200, body: { oversize: true } });
    // The connection stays usable for the next call.
    expect((await send({ method: 'GET', url: `${base}/echo`, headers: {} }, limits)).status).toBe(200);
  });

  it('times out the whole exchange: an answer that never starts, and one whose body stalls', async () => {
    const short = { ...limits, timeoutMs: 150 };
    for (const path of ['/slow-headers', '/slow-body']) {
      const started = Date.now();
      const error = await thrown(send({ method: 'GET', url: `${base}${path}`, headers: {} }, short));
      expect(error).toMatchObject({ name: 'TimeoutError' });
      expect(transportCause(error)).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(1_500);
    }
  });

  it('fails as a reset when the connection drops mid-answer, and as refused when nobody listens', async () => {
    const cut = await thrown(send({ method: 'GET', url: `${base}/cut`, headers: {} }, limits));
    expect(transportCause(cut)).toBe('reset');
    // A port just closed: nothing listens there.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await thrown(
      send({ method: 'GET', url: `http://127.0.0.1:${port}/x`, headers: {} }, limits),
    );
    expect(transportCause(refused)).toBe('refused');
  });

  it('refuses a header no HTTP request may carry before sending anything, and leaves no timer behind', async () => {
    const short = { ...limits, timeoutMs: 50 };
    const error = await thrown(
      send(
        { method: 'POST', url: `${base}/echo`, headers: { 'app-name': 'line\nbreak' }, body: '{}' },
        short,
      ),
    );
    expect(transportCause(error)).toBe('network');
    // Past its timeout: nothing fires (a timer left behind would throw here, outside any call).
    await new Promise((resolve) => setTimeout(resolve, 120));
  });
});
