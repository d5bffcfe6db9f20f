import type { ServerResponse } from 'node:http';

/**
 * A JSON answer whose text never changes (intake's "recorded" and "duplicate"), made once: no stringify and no
 * ETag digest per request, as Express's res.json would do. The same status line and headers a client sees
 * from res.json, but the ETag, which means nothing on the answer to a POST.
 */
export function fixedJson(value: unknown): (res: ServerResponse, status?: number) => void {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  return (res, status = 200) => {
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', body.length);
    res.end(body);
  };
}
