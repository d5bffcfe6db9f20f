import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Captured, captureLogger } from '../helpers/capture-logger.js';
import { useTestDatabase } from '../helpers/database.js';
import { signedProxyQuery } from '../helpers/proxy.js';
import { createTestWebApp, type TestWebApp } from '../helpers/web-app.js';

/**
 * The app's last error handler, met with a real failure: a table the shoppers' page reads is gone, so the
 * ORM throws its multi-line message (the call, source paths, the cause). The operator gets one short line
 * with an error id; the client gets the same id and nothing else. On both databases.
 */

const SECRET = 'error-handler-secret';
const SHOP = 'error-handler.myshopify.com';

const db = useTestDatabase();
let web: TestWebApp;
let logs: Captured;

beforeAll(async () => {
  logs = captureLogger('debug');
  web = createTestWebApp({ prisma: db.prisma, secret: SECRET, logger: logs.logger });
  await db.prisma.shop.create({ data: { domain: SHOP } });
  await db.prisma.$executeRawUnsafe('DROP TABLE "LookupLimit"');
});

describe('the final error handler', () => {
  it('answers 500 with an error id and logs one safe line with the same id', async () => {
    const query = signedProxyQuery({ shop: SHOP, tracking: '1Z999' }, SECRET);
    const res = await request(web.app).get(`/proxy?${query}`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal_error', errorId: expect.stringMatching(/^[0-9a-f]{16}$/) });

    const failures = logs.records.filter((r) => r.level >= 50);
    expect(failures).toHaveLength(1);
    const [record] = failures;
    expect(record).toMatchObject({ msg: 'request failed', errorId: res.body.errorId, method: 'GET' });
    expect(record!.path).toBe('/proxy');
    const err = record!.error as { name: string; message: string; code?: string };
    expect(err.name).toMatch(/Error/);
    expect(err.message.length).toBeLessThanOrEqual(200);
    expect(err.message).not.toMatch(/\n/);
    expect(Object.keys(record!)).not.toContain('stack');
    // No source path, no stack frame, no query parameters of the request.
    const line = logs.lines[logs.records.indexOf(record!)]!;
    expect(line).not.toMatch(/\.ts:\d+|\.js:\d+|\/work\/|node_modules|\bat\s+\w+\s*\(/);
    expect(line).not.toContain('1Z999');
    expect(line).not.toContain('signature');
  });
});
