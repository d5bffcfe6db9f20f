import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSlackPoster, postableUrl } from '../../src/notifications/slack-poster.js';
import { isSlackWebhookUrl } from '../../src/settings/notifications.js';
import { type SlackReceiver, startSlackReceiver } from './slack-receiver.js';

/** The Slack client alone: where it posts, its timeout, its bounded read, and what its failures say. */

let slack: SlackReceiver;
beforeAll(async () => {
  slack = await startSlackReceiver();
});
afterAll(async () => {
  await slack?.close();
});
beforeEach(() => {
  slack.posts.length = 0;
  slack.status = 200;
  slack.delayMs = 0;
});

describe('isSlackWebhookUrl (what the merchant may set)', () => {
  it('takes https://hooks.slack.com/ with a path, nothing else', () => {
    expect(isSlackWebhookUrl('https://hooks.slack.com/services/T000/B000/XXXX')).toBe(true);
    expect(isSlackWebhookUrl('https://hooks.slack.com/triggers/T000/1/abc')).toBe(true);
    for (const url of [
      'http://hooks.slack.com/services/T000/B000/XXXX',
      'https://hooks.slack.com/',
      'https://hooks.slack.com.evil.example/services/x',
      'https://evil.example/hooks.slack.com/services/x',
      'https://hooks.slack.com:8443/services/x',
      'https://user:pw@hooks.slack.com/services/x',
      'https://hooks.slack.com/services/x#frag',
      'hooks.slack.com/services/x',
      '',
    ])
      expect(isSlackWebhookUrl(url), url).toBe(false);
  });
});

describe('createSlackPoster', () => {
  it('posts the text as JSON and takes a 2xx as done', async () => {
    const poster = createSlackPoster({ allowLoopbackHttp: true });
    expect(await poster.post(slack.url, 'hello *there*')).toEqual({ ok: true });
    expect(slack.posts).toEqual([{ path: new URL(slack.url).pathname, text: 'hello *there*' }]);
  });

  it('posts only to https, or to http://127.0.0.1 when allowed (tests)', async () => {
    expect(postableUrl('https://hooks.slack.com/services/x')).toBe(true);
    expect(postableUrl(slack.url)).toBe(false);
    expect(postableUrl(slack.url, true)).toBe(true);
    expect(postableUrl('http://localhost:1/x', true)).toBe(false);
    expect(postableUrl('http://10.0.0.1/x', true)).toBe(false);
    const strict = createSlackPoster();
    expect(await strict.post(slack.url, 'x')).toEqual({
      ok: false,
      reason: 'the Slack webhook URL is not an https URL',
      status: null,
    });
    expect(slack.posts).toEqual([]);
  });

  it('a non-2xx answer is a failure with its status and Slack’s error word, never the URL', async () => {
    slack.status = 404;
    const result = await createSlackPoster({ allowLoopbackHttp: true }).post(slack.url, 'x');
    expect(result).toEqual({ ok: false, reason: 'Slack answered 404 (no_service)', status: 404 });
    expect(JSON.stringify(result)).not.toContain(slack.secret);
  });

  it('gives up after its timeout, once (no retry)', async () => {
    slack.delayMs = 1_500;
    const began = Date.now();
    const result = await createSlackPoster({ allowLoopbackHttp: true, timeoutMs: 300 }).post(slack.url, 'x');
    expect(Date.now() - began).toBeLessThan(1_400);
    expect(result).toEqual({ ok: false, reason: 'Slack did not answer within 300 ms', status: null });
    expect(slack.posts).toHaveLength(1);
  });

  it('says when nothing listens, without the URL', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const url = `http://127.0.0.1:${port}/services/T/B/secret-part`;
    const result = await createSlackPoster({ allowLoopbackHttp: true }).post(url, 'x');
    expect(result).toEqual({ ok: false, reason: 'Slack could not be reached (ECONNREFUSED)', status: null });
  });

  it('reads a bounded answer, and never follows a redirect', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(100_000));
      } else {
        res.writeHead(302, { location: 'https://example.com/elsewhere' });
        res.end();
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const poster = createSlackPoster({ allowLoopbackHttp: true, maxResponseBytes: 1024 });
      // A 2xx is taken whatever its size: the rest of the answer is not read.
      expect(await poster.post(`http://127.0.0.1:${port}/big`, 'x')).toEqual({ ok: true });
      expect(await poster.post(`http://127.0.0.1:${port}/redirect`, 'x')).toEqual({
        ok: false,
        reason: 'Slack answered 302',
        status: 302,
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
