/**
 * The floor: a bare `node:http` server that reads the whole body and answers `{"ok":true}`. Run as a child:
 * `node --import tsx bench/noop-http-server.ts <port>`; prints `listening http://127.0.0.1:<port>` once ready.
 */
import { createServer } from 'node:http';
import { listenOnLoopback } from './noop-listen.js';

const answer = Buffer.from('{"ok":true}');

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': answer.length,
    });
    res.end(answer);
  });
});

listenOnLoopback(server.listen(Number(process.argv[2] ?? 0), '127.0.0.1'));
