import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
        const raw = Buffer.concat(chunks).toString('latin1');
        const parsed = parseMail(raw);
        kept.push({
          id: nextId++,
          receivedAt: new Date(),
          envelope: {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
            to: session.envelope.rcptTo.map((r) => r.address),
          },
          ...parsed,
          raw: Buffer.from(raw, 'latin1').toString('utf8'),
        });
        while (kept.length > keep) kept.shift();
        for (const wake of waiters) wake();
        callback();
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

/**
 * Reads a message (its bytes as latin1 text) as far as the page needs: the headers it shows (encoded
 * words decoded) and the first text/plain and text/html parts, through nested multiparts, decoded from
 * quoted-printable or base64 as UTF-8.
 */
export function parseMail(raw: string): ParsedMail {
  const { headers, body } = splitEntity(raw);
  const parts = leafParts(headers, body);
  return {
    subject: decodeWords(headers.get('subject') ?? ''),
    from: decodeWords(headers.get('from') ?? ''),
    to: decodeWords(headers.get('to') ?? ''),
    text: parts.find((p) => p.type === 'text/plain')?.content ?? null,
    html: parts.find((p) => p.type === 'text/html')?.content ?? null,
  };
}

function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.search(/\r?\n\r?\n/);
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? '' : raw.slice(end).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  // Folded lines (starting with a space or tab) continue the header above.
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** A header's parameter (`boundary`, `charset`), quoted or not. */
function parameter(header: string, name: string): string | null {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(header);
  return match ? (match[1] ?? match[2] ?? null) : null;
}

function leafParts(
  headers: Map<string, string>,
  body: string,
  depth = 0,
): Array<{ type: string; content: string }> {
  const contentType = headers.get('content-type') ?? 'text/plain';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type.startsWith('multipart/') && depth < 5) {
    const boundary = parameter(contentType, 'boundary');
    if (!boundary) return [];
    const sections = body.split(`--${boundary}`).slice(1);
    return sections
      .filter((section) => !section.startsWith('--'))
      .flatMap((section) => {
        const entity = splitEntity(section.replace(/^\r?\n/, ''));
        return leafParts(entity.headers, entity.body.replace(/\r?\n$/, ''), depth + 1);
      });
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').trim().toLowerCase();
  return [{ type, content: decodeBody(body, encoding) }];
}

/** A part's bytes (latin1 text) decoded by its transfer encoding, read as UTF-8. */
function decodeBody(body: string, encoding: string): string {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return quotedPrintable(body);
  return Buffer.from(body, 'latin1').toString('utf8');
}

function quotedPrintable(text: string): string {
  const unfolded = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < unfolded.length; i++) {
    const hex = unfolded.slice(i + 1, i + 3);
    if (unfolded[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(unfolded.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A header as UTF-8, its RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded. */
function decodeWords(value: string): string {
  return Buffer.from(value, 'latin1')
    .toString('utf8')
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_all, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : quotedPrintable(data.replace(/_/g, ' ')),
    );
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
