/**
 * The comparison route: Express with `express.raw()` body parsing (as the app's POST /webhooks has), answering
 * `{"ok":true}` without looking at the request. Run as a child: `node --import tsx bench/noop-express-server.ts
 * <port>`; prints `listening http://127.0.0.1:<port>` once ready.
 */
import express from 'express';
import { listenOnLoopback } from './noop-listen.js';

const app = express();
app.disable('x-powered-by');
app.post('/webhooks', express.raw({ type: () => true, limit: '2mb' }), (_req, res) => {
  res.json({ ok: true });
});

listenOnLoopback(app.listen(Number(process.argv[2] ?? 0), '127.0.0.1'));
