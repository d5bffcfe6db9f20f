import { safeTrackingUrl } from '../trackers/fulfillment-payload.js';
import type { ShopperParcel } from './lookup.js';
import type { ProxyMessages } from './messages.js';

/**
 * The shopper's page as markup: semantic HTML, no script, no external request. Answered as Liquid (the
 * store's theme wraps it) or, with `format=html`, as a whole document.
 *
 * Every text that is not ours (what the carrier wrote, what the shopper typed) goes through `text()`:
 * HTML-escaped, and `{` `}` written as character references, so Liquid never runs `{{ … }}` or `{% … %}`
 * from a carrier's message and the browser still shows the braces.
 */

export function text(value: string): string {
  return value.replace(
    /[&<>"'{}]/g,
    (c) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '{': '&#123;', '}': '&#125;' })[
        c
      ] ?? c,
  );
}

function dateTime(value: string | null, locale: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(
    date,
  );
}

/**
 * A date text (YYYY-MM-DD first) as its weekday and date in the page's language: "Thursday, 27 November"
 * in English, "Donnerstag, 27. November" in German. A text that is no date is shown as given.
 */
export function weekdayDate(value: string, locale: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!match) return value;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (Number.isNaN(date.getTime())) return value;
  const options = { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' } as const;
  if (locale !== 'en') return new Intl.DateTimeFormat(locale, options).format(date);
  const parts = new Intl.DateTimeFormat('en-GB', options).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')}, ${part('day')} ${part('month')}`;
}

/** "Arriving …" for the service's estimate, "Expected by …" for a predicted one; none without an estimate. */
function estimateLine(parcel: ShopperParcel, page: ProxyPage): string {
  if (!parcel.estimate) return '';
  const { date, predicted } = parcel.estimate;
  const wording = predicted ? page.messages.expectedBy : page.messages.arriving;
  const sentence = wording.replace('{day}', weekdayDate(date, page.locale));
  return `<p class="tracksync-estimate" data-estimate="${predicted ? 'predicted' : 'service'}">${text(sentence)}</p>`;
}

export interface ProxyPage {
  /** Where the form sends the shopper (the store's proxy path, e.g. /apps/track). */
  action: string;
  locale: string;
  messages: ProxyMessages;
  tracking: string;
  /** The order number as the shopper typed it (the email is never written back into the page). */
  order: string;
  /** Whole document (direct links) instead of a Liquid fragment. */
  html: boolean;
  /** A locale the request named (kept by the forms, so the answer is in the same language). */
  localeParam: string | null;
  /** The lookup's answer: a parcel, not found, or no lookup yet. */
  result:
    | { kind: 'parcel'; parcel: ShopperParcel }
    | { kind: 'order'; orderName: string; parcels: ShopperParcel[] }
    /** A logged-in customer's recent orders, newest first. */
    | { kind: 'customer'; orders: Array<{ orderName: string; parcels: ShopperParcel[] }> }
    | { kind: 'not_found' }
    /** A parameter (by name) held a character no lookup can take: the form again, with why (400). */
    | { kind: 'refused'; field: string }
    | { kind: 'none' };
}

/** The form's label of a parameter the shopper types; any other parameter by its name. */
function fieldLabel(field: string, m: ProxyMessages): string {
  const labels: Record<string, string> = {
    tracking: m.trackingLabel,
    order: m.orderLabel,
    email: m.emailLabel,
  };
  return Object.hasOwn(labels, field) ? labels[field]! : field;
}

function form(page: ProxyPage): string {
  const m = page.messages;
  const html =
    (page.html ? '<input type="hidden" name="format" value="html">' : '') +
    (page.localeParam ? `<input type="hidden" name="locale" value="${text(page.localeParam)}">` : '');
  return `<form class="tracksync-form" method="get" action="${text(page.action)}" role="search">
  <p>${text(m.intro)}</p>
  <label for="tracksync-order">${text(m.orderLabel)}</label>
  <input id="tracksync-order" name="order" type="text" required maxlength="50" autocomplete="off" value="${text(page.order)}">
  <label for="tracksync-email">${text(m.emailLabel)}</label>
  <input id="tracksync-email" name="email" type="email" required maxlength="254" autocomplete="email">
  ${html}
  <button type="submit">${text(m.submit)}</button>
</form>
<form class="tracksync-form" method="get" action="${text(page.action)}" role="search">
  <p>${text(m.byNumber)}</p>
  <label for="tracksync-tracking">${text(m.trackingLabel)}</label>
  <input id="tracksync-tracking" name="tracking" type="text" required maxlength="100" autocomplete="off" value="${text(page.tracking)}">
  ${html}
  <button type="submit">${text(m.submit)}</button>
</form>`;
}

/** One parcel; `level` is its heading's (2 on its own or in an order, 3 in a customer's list of orders). */
function parcelSection(parcel: ShopperParcel, page: ProxyPage, level = 2): string {
  const m = page.messages;
  // Only http(s) links are ever written into the page (the same rule as when the link was stored).
  const link = safeTrackingUrl(parcel.trackingUrl);
  const events =
    parcel.events.length === 0
      ? `<p>${text(m.noEvents)}</p>`
      : `<ol class="tracksync-events">${parcel.events
          .map((e) => {
            const at = dateTime(e.at, page.locale);
            return `<li>${at ? `<time datetime="${text(e.at!)}">${text(at)}</time> ` : ''}<span>${text(e.message)}</span>${
              e.location ? ` <span class="tracksync-place">${text(e.location)}</span>` : ''
            }</li>`;
          })
          .join('')}</ol>`;
  return `<article class="tracksync-parcel">
  <h${level}>${text(parcel.trackingNumber)}</h${level}>
  ${estimateLine(parcel, page)}
  <dl>
    <dt>${text(m.status)}</dt><dd data-group="${parcel.group}">${text(m.groups[parcel.group])}</dd>
    ${parcel.carrier ? `<dt>${text(m.carrier)}</dt><dd>${text(parcel.carrier)}</dd>` : ''}
  </dl>
  ${link ? `<p><a href="${text(link)}" rel="noopener noreferrer" target="_blank">${text(m.trackOnCarrier)}</a></p>` : ''}
  <h${level + 1}>${text(m.history)}</h${level + 1}>
  ${events}
</article>`;
}

function orderSection(
  order: { orderName: string; parcels: ShopperParcel[] },
  page: ProxyPage,
  level: number,
): string {
  const m = page.messages;
  return `<section class="tracksync-order"><h${level}>${text(m.order)} ${text(order.orderName)}</h${level}>${
    order.parcels.length === 0
      ? `<p>${text(m.noParcels)}</p>`
      : order.parcels.map((parcel) => parcelSection(parcel, page, level === 2 ? 2 : level + 1)).join('\n')
  }</section>`;
}

export function renderProxyPage(page: ProxyPage): string {
  const m = page.messages;
  const result = page.result;
  const answer =
    result.kind === 'parcel'
      ? parcelSection(result.parcel, page)
      : result.kind === 'order'
        ? orderSection(result, page, 2)
        : result.kind === 'not_found'
          ? `<p class="tracksync-not-found" role="status">${text(m.notFound)}</p>`
          : result.kind === 'refused'
            ? `<p class="tracksync-refused" role="alert">${text(fieldLabel(result.field, m))}: ${text(m.unusable)}</p>`
            : '';
  // A logged-in customer's orders come first; the forms stay below for any other parcel.
  const recent =
    result.kind === 'customer'
      ? `<section class="tracksync-recent"><h2>${text(m.recentOrders)}</h2>${result.orders
          .map((order) => orderSection(order, page, 3))
          .join('\n')}</section>`
      : '';
  const body = `<section class="tracksync-track" lang="${text(page.locale)}">
<h1>${text(m.title)}</h1>
${recent}
${form(page)}
${answer}
</section>`;
  if (!page.html) return body;
  return `<!doctype html>
<html lang="${text(page.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${text(m.title)}</title>
<style>
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#fafafa}
.tracksync-track{max-width:40rem;margin:0 auto;padding:1rem;overflow-wrap:anywhere}
.tracksync-form{display:grid;gap:.5rem;margin-bottom:1.5rem}
input,button{font:inherit;padding:.5rem .75rem;border-radius:.5rem;border:1px solid #8a8a8a;min-width:0}
button{background:#1a1a1a;color:#fff;border-color:#1a1a1a;cursor:pointer}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0}
.tracksync-events{padding-left:1.25rem}.tracksync-events li{margin-bottom:.5rem}
.tracksync-place{color:#555}
.tracksync-estimate{font-weight:600}
</style>
</head>
<body>
${body}
</body>
</html>`;
}
