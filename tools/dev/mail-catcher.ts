import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A local SMTP server that keeps what it is sent, for `npm run dev` and the tests: it listens on 127.0.0.1,
 * accepts any sender and recipient without a login, keeps the last messages in memory (nothing is
 * delivered anywhere) and shows them on a small page: GET / lists them, /messages/<id> shows one (its text
 * part, its HTML part in a sandboxed frame, its source), /messages.json gives them all.
 */

export interface CaughtMail {
  id: number;
  receivedAt: Date;
  /** The envelope: who the client said it is from and to (MAIL FROM, RCPT TO). */
  envelope: { from: string | null; to: string[] };
  subject: string;
  /** The From and To headers, as written. */
  from: string;
  to: string;
  text: string | null;
  html: string | null;
  /** The message as received. */
  raw: string;
}

export interface MailCatcher {
  /** smtp://127.0.0.1:<port>: what SMTP_URL should be. */
  smtpUrl: string;
  smtpPort: number;
  /** The page listing the messages, or null when it was not asked for. */
  pageUrl: string | null;
  /** The messages kept, oldest first. */
  messages(): CaughtMail[];
  /** Resolves when at least `count` messages are kept; fails after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<CaughtMail[]>;
  clear(): void;
  close(): Promise<void>;
}

export interface MailCatcherOptions {
  /** SMTP port (default 0: any free one). */
  smtpPort?: number;
  /** The page's port (0: any free one); null: no page. Default null. */
  pagePort?: number | null;
  /** How many messages are kept (default 50): older ones are dropped. */
  keep?: number;
  /** Largest message taken (default 5 MiB). */
  maxBytes?: number;
}

const host = '127.0.0.1';

export async function startMailCatcher(options: MailCatcherOptions = {}): Promise<MailCatcher> {
  const keep = options.keep ?? 50;
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const kept: CaughtMail[] = [];
  const waiters = new Set<() => void>();
  let nextId = 1;

  const smtp = new SMTPServer({
    authOptional: true,
    // Loopback only, and no certificate to offer: plain SMTP (the client must not try STARTTLS).
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: maxBytes,
    logger: false,
    banner: 'tracksync dev mail catcher',
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(Object.assign(new Error('Message too large'), { responseCode: 552 }));
          return;
        }
        const raw = Buffer.concat(chunks);
        parseMail(raw).then(
          (parsed) => {
            kept.push({
              id: nextId++,
              receivedAt: new Date(),
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              ...parsed,
              raw: raw.toString('utf8'),
            });
            while (kept.length > keep) kept.shift();
            for (const wake of waiters) wake();
            callback();
          },
          (error: unknown) =>
            callback(Object.assign(new Error(`Unreadable message: ${String(error)}`), { responseCode: 554 })),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(options.smtpPort ?? 0, host, () => {
      smtp.off('error', reject);
      resolve();
    });
  });
  // A later server error (none expected on loopback) is not worth stopping the developer's setup for.
  smtp.on('error', () => undefined);
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  let page: Server | null = null;
  if (options.pagePort !== undefined && options.pagePort !== null) {
    page = createServer((req, res) => servePage(req, res, kept));
    page.listen(options.pagePort, host);
    try {
      await once(page, 'listening');
    } catch (error) {
      await new Promise<void>((resolve) => smtp.close(resolve));
      throw error;
    }
  }
  const pagePort = page ? (page.address() as AddressInfo).port : null;

  return {
    smtpUrl: `smtp://${host}:${smtpPort}`,
    smtpPort,
    pageUrl: pagePort === null ? null : `http://${host}:${pagePort}`,
    messages: () => [...kept],
    waitFor(count, timeoutMs = 10_000) {
      if (kept.length >= count) return Promise.resolve([...kept]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${count} e-mails not received in ${timeoutMs} ms (got ${kept.length})`));
        }, timeoutMs);
        const check = () => {
          if (kept.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve([...kept]);
        };
        waiters.add(check);
      });
    },
    clear() {
      kept.length = 0;
    },
    async close() {
      await new Promise<void>((resolve) => smtp.close(resolve));
      if (page) {
        const closed = new Promise((resolve) => page!.close(resolve));
        page.closeAllConnections();
        await closed;
      }
    },
  };
}

/** What the page shows of a message. */
export interface ParsedMail {
  subject: string;
  from: string;
  to: string;
  text: string | null;
  html: string | null;
}

/** A From or To header as mailparser reads it, names and addresses written out ("Name <a@b>"). */
const addresses = (value: AddressObject | AddressObject[] | undefined): string =>
  (Array.isArray(value) ? value : value ? [value] : []).map((address) => address.text).join(', ');

/**
 * Reads a message as far as the page needs, with mailparser: the headers it shows (encoded words decoded)
 * and its text/plain and text/html parts, through nested multiparts, decoded by their transfer encoding and
 * charset. A part the message does not have stays null (no text made from the HTML, nor HTML from the text).
 */
export async function parseMail(raw: Buffer): Promise<ParsedMail> {
  const mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  return {
    subject: mail.subject ?? '',
    from: addresses(mail.from),
    to: addresses(mail.to),
    text: mail.text ?? null,
    html: mail.html || null,
  };
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

function send(res: ServerResponse, status: number, type: string, body: string, csp?: string): void {
  res.writeHead(status, {
    'content-type': `${type}; charset=utf-8`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy':
      csp ?? "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; img-src data:",
  });
  res.end(body);
}

const pageStyle =
  'body{font-family:system-ui,sans-serif;margin:24px;color:#303030}table{border-collapse:collapse}' +
  'td,th{padding:4px 12px 4px 0;text-align:left;vertical-align:top}pre{white-space:pre-wrap;background:#f6f6f7;padding:12px}' +
  'iframe{width:100%;height:480px;border:1px solid #ccc}';

function servePage(req: IncomingMessage, res: ServerResponse, kept: readonly CaughtMail[]): void {
  if (req.method !== 'GET') return send(res, 405, 'text/plain', 'Only GET');
  const path = new URL(req.url ?? '/', 'http://catcher').pathname;
  if (path === '/messages.json') {
    return send(
      res,
      200,
      'application/json',
      JSON.stringify(kept.map(({ raw: _raw, ...message }) => message)),
    );
  }
  const match = /^\/messages\/(\d+)(\/html|\/raw)?$/.exec(path);
  if (match) {
    const message = kept.find((m) => m.id === Number(match[1]));
    if (!message) return send(res, 404, 'text/plain', 'No such message (only the last ones are kept)');
    if (match[2] === '/raw') return send(res, 200, 'text/plain', message.raw);
    if (match[2] === '/html')
      // The message's own HTML, shown with nothing able to run or load (a sandboxed frame, no sources).
      return send(
        res,
        200,
        'text/html',
        message.html ?? '',
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox",
      );
    return send(
      res,
      200,
      'text/html',
      [
        `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(message.subject)}</title>`,
        `<style>${pageStyle}</style></head><body>`,
        '<p><a href="/">All messages</a></p>',
        `<h1>${escapeHtml(message.subject || '(no subject)')}</h1>`,
        '<table>',
        `<tr><th>From</th><td>${escapeHtml(message.from)}</td></tr>`,
        `<tr><th>To</th><td>${escapeHtml(message.to)}</td></tr>`,
        `<tr><th>Envelope</th><td>${escapeHtml(message.envelope.to.join(', '))}</td></tr>`,
        `<tr><th>Received</th><td>${escapeHtml(message.receivedAt.toISOString())}</td></tr>`,
        '</table>',
        message.html !== null
          ? `<h2>HTML part</h2><iframe sandbox src="/messages/${message.id}/html" title="HTML part"></iframe>`
          : '',
        message.text !== null ? `<h2>Text part</h2><pre>${escapeHtml(message.text)}</pre>` : '',
        `<p><a href="/messages/${message.id}/raw">Source</a></p>`,
        '</body></html>',
      ].join('\n'),
    );
  }
  if (path !== '/') return send(res, 404, 'text/plain', 'Not found');
  const rows = [...kept]
    .reverse()
    .map(
      (m) =>
        `<tr><td>${escapeHtml(m.receivedAt.toISOString())}</td><td>${escapeHtml(m.envelope.to.join(', '))}</td>` +
        `<td><a href="/messages/${m.id}">${escapeHtml(m.subject || '(no subject)')}</a></td></tr>`,
    );
  return send(
    res,
    200,
    'text/html',
    [
      '<!doctype html><html><head><meta charset="utf-8"><title>Mail caught by tracksync dev</title>',
      `<style>${pageStyle}</style></head><body>`,
      '<h1>Mail caught by tracksync dev</h1>',
      `<p>${kept.length === 0 ? 'Nothing yet: digest e-mails sent by the app show up here.' : `The last ${kept.length} (newest first; reload for more).`}</p>`,
      '<table><tr><th>Received</th><th>To</th><th>Subject</th></tr>',
      ...rows,
      '</table></body></html>',
    ].join('\n'),
  );
}
