import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/config.js';
import { createSmtpMailer, mailerFromSettings } from '../../src/notifications/mailer.js';
import { type MailCatcher, startMailCatcher } from '../../tools/dev/mail-catcher.js';
import { captureLogger } from '../helpers/capture-logger.js';

/**
 * The SMTP settings (SMTP_URL, MAIL_FROM), the mailer against a real SMTP server on 127.0.0.1, and the
 * dev mail catcher's page that shows what it caught.
 */

const valid = {
  SHOPIFY_API_KEY: 'key',
  SHOPIFY_API_SECRET: 'secret',
  SHOPIFY_APP_URL: 'https://app.example.com',
  TRACKING_API_BASE_URL: 'https://api.example.com/v1',
  ENCRYPTION_KEY: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
};

describe('SMTP_URL and MAIL_FROM', () => {
  it('are optional together; SMTP_URL wants a sender, and neither value is ever echoed', () => {
    expect(loadAppConfig(valid).mail).toEqual({ smtpUrl: null, from: null });
    expect(
      loadAppConfig({
        ...valid,
        SMTP_URL: 'smtps://u:p@smtp.example.com:465',
        MAIL_FROM: 'Shop <d@example.com>',
      }).mail,
    ).toEqual({ smtpUrl: 'smtps://u:p@smtp.example.com:465', from: 'Shop <d@example.com>' });
    expect(() => loadAppConfig({ ...valid, SMTP_URL: 'smtp://127.0.0.1:2525' })).toThrow(
      /MAIL_FROM: must be set when SMTP_URL is/,
    );
    const badUrl = () =>
      loadAppConfig({ ...valid, SMTP_URL: 'https://u:hunter2@x.example', MAIL_FROM: 'a@b.c' });
    expect(badUrl).toThrow(/SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/);
    expect(badUrl).not.toThrow(/hunter2/);
    for (const from of ['no-at-sign', 'a@b.c, c@d.e', 'Name <a@b.c>\r\nBcc: x@y.z'])
      expect(() => loadAppConfig({ ...valid, MAIL_FROM: from }), from).toThrow(/MAIL_FROM/);
  });

  it('without SMTP_URL there is no mailer, and the log says so once, without any URL', () => {
    const logs = captureLogger('info');
    expect(mailerFromSettings({ smtpUrl: null, from: 'a@b.c' }, logs.logger)).toBeNull();
    expect(mailerFromSettings(undefined, captureLogger('info').logger)).toBeNull();
    expect(logs.records.map((r) => r.msg)).toEqual([
      'SMTP_URL is not set: daily digest e-mails are not sent (Slack digests still are)',
    ]);
    const mailer = mailerFromSettings({ smtpUrl: 'smtp://127.0.0.1:1', from: 'a@b.c' }, logs.logger);
    expect(mailer).not.toBeNull();
    mailer?.close();
    expect(logs.records).toHaveLength(1);
  });
});

describe('the mailer and the dev mail catcher', () => {
  let catcher: MailCatcher;
  beforeAll(async () => {
    catcher = await startMailCatcher({ pagePort: 0, keep: 3 });
  });
  afterAll(async () => {
    await catcher?.close();
  });

  it('sends text and HTML parts; the catcher keeps the last messages and shows them escaped', async () => {
    const mailer = createSmtpMailer({ smtpUrl: catcher.smtpUrl, from: 'Tracksync <digest@tracksync.test>' });
    try {
      for (let i = 1; i <= 4; i++) {
        const sent = await mailer.send({
          to: ['a@example.com', 'b@example.com'],
          subject: `Digest ${i}: naïve <b>café</b>`,
          text: `Hello ${i} — “quoted” ${'long line '.repeat(20)}`,
          html: `<p>Hello <b>${i}</b></p><script>alert(1)</script>`,
        });
        expect(sent).toEqual({ ok: true, accepted: 2, rejected: 0 });
      }
    } finally {
      mailer.close();
    }
    const kept = catcher.messages();
    expect(kept.map((m) => m.id)).toEqual([2, 3, 4]);
    const last = kept.at(-1)!;
    expect(last.subject).toBe('Digest 4: naïve <b>café</b>');
    expect(last.envelope).toEqual({ from: 'digest@tracksync.test', to: ['a@example.com', 'b@example.com'] });
    expect(last.text).toBe(`Hello 4 — “quoted” ${'long line '.repeat(20)}`);
    expect(last.html).toBe('<p>Hello <b>4</b></p><script>alert(1)</script>');

    const list = await (await fetch(`${catcher.pageUrl}/`)).text();
    expect(list).toContain('The last 3');
    expect(list).toContain('Digest 4: naïve &lt;b&gt;café&lt;/b&gt;');
    const page = await fetch(`${catcher.pageUrl}/messages/4`);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const body = await page.text();
    expect(body).toContain('Hello 4 — “quoted”');
    expect(body).not.toContain('<script>');
    // The message's own HTML: served sandboxed, nothing able to run.
    const html = await fetch(`${catcher.pageUrl}/messages/4/html`);
    expect(html.headers.get('content-security-policy')).toContain('sandbox');
    expect((await fetch(`${catcher.pageUrl}/messages/1`)).status).toBe(404);
    const json = (await (await fetch(`${catcher.pageUrl}/messages.json`)).json()) as Array<{ id: number }>;
    expect(json.map((m) => m.id)).toEqual([2, 3, 4]);
  });

  it('a server that cannot be reached is a failure of the server, said in one line', async () => {
    const gone = await startMailCatcher();
    await gone.close();
    const mailer = createSmtpMailer({ smtpUrl: gone.smtpUrl, from: 'a@b.c', timeoutMs: 1_000 });
    const sent = await mailer.send({ to: ['a@example.com'], subject: 's', text: 't', html: '<p>t</p>' });
    mailer.close();
    expect(sent).toMatchObject({ ok: false, serverDown: true });
    expect(sent.ok ? '' : sent.reason).toMatch(/ECONNREFUSED/);
    expect(sent.ok ? '' : sent.reason).not.toContain('\n');
  });
});
