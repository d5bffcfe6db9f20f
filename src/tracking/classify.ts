import type { ErrorReason, TransportCause } from './types.js';

/**
 * Reads the service's free-text messages into a reason. The interface names only a few messages
 * (`ssl_error`, `unauthorized`, `Invalid route`, "order id not found", "tracking information does not
 * exist", "app name not found"), so matching is by meaning, most specific first.
 */
export function reasonFromMessage(message: string | null, httpStatus: number): ErrorReason {
  const m = (message ?? '').toLowerCase();
  if (/\bssl/.test(m)) return 'ssl_error';
  if (httpStatus === 429 || /rate limit|too many requests/.test(m)) return 'rate_limited';
  if (/unauthori[sz]ed|invalid api key|forbidden/.test(m)) return 'unauthorized';
  if (/balance|insufficient|exhausted|quota|limit reached|no trackers left/.test(m))
    return 'balance_exhausted';
  if (/postal|post code|postcode|zip|destination[ _]country/.test(m)) return 'destination_required';
  if (/app[ _-]?name/.test(m)) return 'app_name_not_found';
  if (/missing|required/.test(m)) return 'missing_parameter';
  if (/invalid route/.test(m)) return 'invalid_route';
  if (/order/.test(m)) return 'order_not_found';
  if (/provider|carrier|courier/.test(m)) return 'provider_not_found';
  if (/tracking|shipment|not exist|not found/.test(m)) return 'tracking_not_found';
  if (httpStatus === 401) return 'unauthorized';
  if (httpStatus === 404) return 'invalid_route';
  if (httpStatus >= 500) return 'server_error';
  return 'unknown';
}

/** A create answered 200 still created nothing when its `status_msg` reads as a failure. */
export function createMessageIsFailure(statusMessage: string | null): boolean {
  if (statusMessage === null) return false;
  return /error|not found|not exist|invalid|required|missing|exhausted|insufficient|limit|unauthori|fail|denied|unsupported/i.test(
    statusMessage,
  );
}

export function httpStatusIsRetryable(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/** Maps what `fetch` threw to a cause. undici puts the system error code on `cause`. */
export function transportCause(error: unknown): TransportCause {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return 'timeout';
  const code = errorCode(error);
  switch (code) {
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'reset';
    case 'ECONNREFUSED':
      return 'refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'dns';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timeout';
    default:
      return 'network';
  }
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
