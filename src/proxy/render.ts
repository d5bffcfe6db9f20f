import { createHash } from 'node:crypto';
import { directionOf } from '../lib/shopper-locales.js';
import { progressSteps } from '../shipments/shopper-progress.js';
import { defaultTrackingPageSettings, type TrackingPageSettings } from '../shops/tracking-page-settings.js';
import { safeTrackingUrl } from '../trackers/fulfillment-payload.js';
import type { ShopperItem, ShopperParcel } from './lookup.js';
import { formatProxyMessage, type ProxyMessages } from './messages.js';

/**
 * The shopper's page as markup: semantic HTML that needs no script to read, loads nothing but the items'
 * pictures, answered as Liquid (the store's theme wraps it, its fonts and colours rule) or, with
 * `format=html`, as a whole document in the merchant's accent colour.
 *
 * The answer comes first: one card per parcel with the journey's steps (an ordered list, the current step
 * marked for assistive technology), the estimate or the delivery day as its headline, what went wrong and
 * what to do, the latest update, carrier and numbers, the items, the history (folded past five updates).
 * The lookup forms fold away under an answer. One small script, optional, turns the share link into a
 * copy button.
 *
 * Every text that is not ours (what the carrier wrote, what the shopper typed, the merchant's message)
 * goes through `text()`: HTML-escaped, and `{` `}` written as character references, so Liquid never runs
 * `{{ … }}` or `{% … %}` from a carrier's message and the browser still shows the braces.
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

function dateTime(value: string | null, locale: string, timeZone: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(date);
}

/** The calendar day (YYYY-MM-DD) of an instant where the store is. */
function localDay(instant: string, timeZone: string): string | null {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(date);
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

/** A result's share link: the page's own address for this view, and until when it opens it. */
export interface ShareLink {
  href: string;
  /** The instant it stops opening the view (ISO 8601). */
  validUntil: string;
}

export type ProxyOrder = { orderName: string; parcels: ShopperParcel[] };

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
  /** What the merchant set on the admin's Tracking page section. */
  settings?: TrackingPageSettings;
  /** The store's contact e-mail (the contact line's default). */
  contactEmail?: string | null;
  /** The store's time zone (IANA), for the updates' times and the delivery day. */
  timeZone?: string;
  /** A link to the answer's view that needs no e-mail again; none: no link (nothing found, a customer). */
  share?: ShareLink | null;
  /** The lookup's answer: a parcel, not found, or no lookup yet. */
  result:
    | { kind: 'parcel'; parcel: ShopperParcel }
    | ({ kind: 'order' } & ProxyOrder)
    /** A logged-in customer's recent orders, newest first. */
    | { kind: 'customer'; orders: ProxyOrder[] }
    | { kind: 'not_found' }
    /** A share link past its time, or not this store's. */
    | { kind: 'expired' }
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

function forms(page: ProxyPage): string {
  const m = page.messages;
  const hidden =
    (page.html ? '<input type="hidden" name="format" value="html">' : '') +
    (page.localeParam ? `<input type="hidden" name="locale" value="${text(page.localeParam)}">` : '');
  return `<form class="ts-form" method="get" action="${text(page.action)}" role="search">
<p>${text(m.intro)}</p>
<label for="ts-order">${text(m.orderLabel)}</label>
<input id="ts-order" name="order" type="text" required maxlength="50" autocomplete="off" value="${text(page.order)}">
<label for="ts-email">${text(m.emailLabel)}</label>
<input id="ts-email" name="email" type="email" required maxlength="254" autocomplete="email">
${hidden}<button type="submit">${text(m.submit)}</button>
</form>
<form class="ts-form" method="get" action="${text(page.action)}" role="search">
<p>${text(m.byNumber)}</p>
<label for="ts-tracking">${text(m.trackingLabel)}</label>
<input id="ts-tracking" name="tracking" type="text" required maxlength="100" autocomplete="off" value="${text(page.tracking)}">
${hidden}<button type="submit">${text(m.submit)}</button>
</form>`;
}

function hasEstimateHeadline(parcel: ShopperParcel, settings: TrackingPageSettings): boolean {
  return (
    settings.show.estimate &&
    parcel.estimate !== null &&
    parcel.group !== 'delivered' &&
    parcel.progress.trouble === null
  );
}

/** The card's headline: the delivery day, the estimate, or the status in words. */
function headline(parcel: ShopperParcel, page: ProxyPage, settings: TrackingPageSettings): string {
  const m = page.messages;
  const zone = page.timeZone ?? 'UTC';
  if (parcel.group === 'delivered') {
    const at = parcel.deliveredAt ?? parcel.events[0]?.at ?? null;
    const day = at ? localDay(at, zone) : null;
    return day
      ? formatProxyMessage(page.locale, m.deliveredOn, { day: weekdayDate(day, page.locale) })
      : m.groups.delivered;
  }
  if (hasEstimateHeadline(parcel, settings)) {
    const wording = parcel.estimate!.predicted ? m.expectedBy : m.arriving;
    return formatProxyMessage(page.locale, wording, { day: weekdayDate(parcel.estimate!.date, page.locale) });
  }
  if (parcel.progress.trouble) return m.troubles[parcel.progress.trouble].title;
  return m.groups[parcel.group];
}

function steps(parcel: ShopperParcel, m: ProxyMessages): string {
  const { index, trouble } = parcel.progress;
  const items = progressSteps.map((step, i) => {
    if (i < index) return `<li class="ts-done">${text(m.steps[step])}</li>`;
    if (i > index) return `<li>${text(m.steps[step])}</li>`;
    const troubled = trouble ? ` ts-trouble-${trouble}` : '';
    return `<li class="ts-now${troubled}" aria-current="step">${text(m.steps[step])}</li>`;
  });
  return `<ol class="ts-steps" aria-label="${text(m.progress)}">${items.join('')}</ol>`;
}

function troubleNote(parcel: ShopperParcel, m: ProxyMessages): string {
  const trouble = parcel.progress.trouble;
  if (!trouble) return '';
  // Its title is the card's headline: the note says what to do.
  const { advice } = m.troubles[trouble];
  return `<div class="ts-alert ts-alert-${trouble}" role="note"><p>${text(advice)}</p></div>`;
}

type Event = ShopperParcel['events'][number];

function eventItem(e: Event, page: ProxyPage, withPlace: boolean): string {
  const at = dateTime(e.at, page.locale, page.timeZone ?? 'UTC');
  return `<li>${at ? `<time datetime="${text(e.at!)}">${text(at)}</time> ` : ''}<span>${text(e.message)}</span>${
    withPlace && e.location ? ` <span class="ts-place">${text(e.location)}</span>` : ''
  }</li>`;
}

/** The newest five updates, the rest folded. */
function history(
  parcel: ShopperParcel,
  page: ProxyPage,
  settings: TrackingPageSettings,
  level: number,
): string {
  if (!settings.show.history || parcel.events.length < 2) return '';
  const m = page.messages;
  const item = (e: Event) => eventItem(e, page, settings.show.location);
  const first = parcel.events.slice(0, 5).map(item).join('');
  const rest = parcel.events.slice(5);
  return `<h${level} class="ts-sub">${text(m.history)}</h${level}><ol class="ts-events">${first}</ol>${
    rest.length === 0
      ? ''
      : `<details class="ts-more"><summary>${text(formatProxyMessage(page.locale, m.showAllEvents, { count: parcel.events.length }))}</summary><ol class="ts-events" start="6">${rest
          .map(item)
          .join('')}</ol></details>`
  }`;
}

function itemList(items: readonly ShopperItem[], m: ProxyMessages, locale: string, level: number): string {
  const rows = items.map((item) => {
    // Only https pictures, as the store's order gives them (never a shopper's or a carrier's text).
    const image =
      item.imageUrl && /^https:\/\//.test(item.imageUrl)
        ? `<img src="${text(item.imageUrl)}" alt="${text(item.imageAlt ?? '')}" width="56" height="56" loading="lazy" decoding="async">`
        : '<span class="ts-noimg" aria-hidden="true"></span>';
    return `<li>${image}<span><span class="ts-item">${text(item.name)}</span>${
      item.variant ? `<span class="ts-place">${text(item.variant)}</span>` : ''
    }<span class="ts-place">${text(formatProxyMessage(locale, m.quantity, { count: item.quantity }))}</span></span></li>`;
  });
  return `<h${level} class="ts-sub">${text(m.items)}</h${level}><ul class="ts-items">${rows.join('')}</ul>`;
}

/** One parcel's card; `level` is its headline's heading level. */
function parcelCard(
  parcel: ShopperParcel,
  page: ProxyPage,
  level: number,
  place: { n: number; total: number } | null,
): string {
  const m = page.messages;
  const settings = page.settings ?? defaultTrackingPageSettings;
  // Only http(s) links are ever written into the page (the same rule as when the link was stored).
  const link = safeTrackingUrl(parcel.trackingUrl);
  const latest = parcel.events[0];
  const facts = [
    parcel.carrier ? `<dt>${text(m.carrier)}</dt><dd>${text(parcel.carrier)}</dd>` : '',
    `<dt>${text(m.trackingNumber)}</dt><dd>${text(parcel.trackingNumber)}${
      link
        ? ` <a href="${text(link)}" rel="noopener noreferrer" target="_blank">${text(m.trackOnCarrier)}</a>`
        : ''
    }</dd>`,
    parcel.lastMile
      ? `<dt>${text(m.lastMile)}</dt><dd>${text(parcel.lastMile.number)}${
          parcel.lastMile.carrier ? ` <span class="ts-place">${text(parcel.lastMile.carrier)}</span>` : ''
        }</dd>`
      : '',
  ].join('');
  const status = [m.groups[parcel.group], parcel.carrier].filter((v): v is string => !!v).join(' · ');
  return `<article class="ts-card" data-group="${parcel.group}" data-step="${parcel.progress.step}">
${place && place.total > 1 ? `<p class="ts-count">${text(formatProxyMessage(page.locale, m.parcelCount, place))}</p>` : ''}<h${level} class="ts-head"${
    hasEstimateHeadline(parcel, settings)
      ? ` data-estimate="${parcel.estimate!.predicted ? 'predicted' : 'service'}"`
      : ''
  }>${text(headline(parcel, page, settings))}</h${level}>
<p class="ts-status">${text(status)}</p>
${steps(parcel, m)}
${troubleNote(parcel, m)}
<div class="ts-latest"><h${level + 1} class="ts-sub">${text(m.latestUpdate)}</h${level + 1}>${
    latest
      ? `<ul class="ts-events ts-one">${eventItem(latest, page, settings.show.location)}</ul>`
      : `<p>${text(m.noEvents)}</p>`
  }</div>
<dl class="ts-facts">${facts}</dl>
${settings.show.items && parcel.items && parcel.items.length > 0 ? itemList(parcel.items, m, page.locale, level + 1) : ''}
${history(parcel, page, settings, level + 1)}
</article>`;
}

function orderSection(order: ProxyOrder, page: ProxyPage, level: number): string {
  const m = page.messages;
  const total = order.parcels.length;
  return `<section class="ts-order"><h${level}>${text(m.order)} ${text(order.orderName)}</h${level}>${
    total === 0
      ? `<p class="ts-empty" role="status">${text(m.notShipped)}</p>`
      : order.parcels.map((p, i) => parcelCard(p, page, level + 1, { n: i + 1, total })).join('\n')
  }</section>`;
}

/** A link's end as its day ("Saturday, 28 November") and time ("14:05") where the store is. */
function untilWords(instant: string, page: ProxyPage): { day: string; time: string } {
  const timeZone = page.timeZone ?? 'UTC';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return { day: instant, time: '' };
  const time = new Intl.DateTimeFormat(page.locale, { hour: 'numeric', minute: '2-digit', timeZone }).format(
    date,
  );
  return { day: weekdayDate(localDay(instant, timeZone) ?? instant, page.locale), time };
}

function shareBlock(page: ProxyPage): string {
  if (!page.share) return '';
  const m = page.messages;
  const href = text(page.share.href);
  return `<div class="ts-share"><a href="${href}">${text(m.shareLink)}</a> <button type="button" hidden data-ts-copy="${href}" data-ts-copied="${text(
    m.linkCopied,
  )}">${text(m.copyLink)}</button><p class="ts-place">${text(
    formatProxyMessage(page.locale, m.shareValidUntil, untilWords(page.share.validUntil, page)),
  )}</p></div>`;
}

function contactLine(page: ProxyPage): string {
  const m = page.messages;
  const contact = (page.settings ?? defaultTrackingPageSettings).contact;
  const link =
    contact.kind === 'url' && contact.url !== ''
      ? `<a href="${text(contact.url)}" rel="noopener noreferrer">${text(m.contactPage)}</a>`
      : contact.kind === 'store_email' && page.contactEmail
        ? `<a href="mailto:${text(encodeURI(page.contactEmail))}">${text(m.contactEmail)}</a>`
        : null;
  return link ? `<p class="ts-contact">${text(m.contactQuestion)} ${link}</p>` : '';
}

/** Copies the share link; the button is hidden until this runs, so without script nothing is broken. */
const copyScript =
  "document.querySelectorAll('[data-ts-copy]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){var u=new URL(b.getAttribute('data-ts-copy'),location.href).href;navigator.clipboard.writeText(u).then(function(){b.textContent=b.getAttribute('data-ts-copied')},function(){})})})";
/** The script's hash, which the whole document's Content-Security-Policy allows (and nothing else). */
export const copyScriptHash = `sha256-${createHash('sha256').update(copyScript).digest('base64')}`;

/** The whole document's policy: its own style, the items' https pictures, the copy script, forms back. */
export const proxyPagePolicy = `default-src 'none'; style-src 'unsafe-inline'; img-src https:; script-src '${copyScriptHash}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

/** Black or white, whichever reads better on the accent (WCAG contrast). */
export function textOn(accent: string): '#000000' | '#ffffff' {
  const channel = (hex: string) => {
    const c = parseInt(hex, 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = [1, 3, 5].map((i) => channel(accent.slice(i, i + 2))) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) ? '#000000' : '#ffffff';
}

/** The page's structure, in both modes; colours from variables the mode sets. */
const layoutCss = `.ts{max-width:42rem;margin:0 auto;padding:1rem;overflow-wrap:anywhere;text-align:start}
.ts h1{margin:0 0 .75rem}.ts-note{margin:0 0 1rem}
.ts-card{border:1px solid rgba(128,128,128,.45);border-radius:.75rem;padding:1rem;margin:0 0 1rem;background:var(--ts-card)}
.ts-count,.ts-status,.ts-place{color:var(--ts-muted);font-size:.875rem;margin:0}
.ts-head{margin:.125rem 0;font-size:1.375rem;line-height:1.3}
.ts-steps{list-style:none;display:grid;grid-template-columns:repeat(5,minmax(0,1fr));padding:0;margin:1rem 0}
.ts-steps li{position:relative;padding-top:1.5rem;font-size:.75rem;line-height:1.25;text-align:center;color:var(--ts-muted);overflow-wrap:normal;hyphens:auto}
.ts-steps li::before{content:"";position:absolute;top:.25rem;inset-inline-start:calc(50% - .5rem);width:1rem;height:1rem;box-sizing:border-box;border-radius:50%;border:2px solid var(--ts-line);background:var(--ts-card);z-index:1}
.ts-steps li+li::after{content:"";position:absolute;top:.6875rem;inset-inline-end:calc(50% + .5rem);width:calc(100% - 1rem);height:2px;background:var(--ts-line)}
.ts-steps .ts-done::before,.ts-steps .ts-now::before{background:var(--ts-accent);border-color:var(--ts-accent)}
.ts-steps .ts-done::after,.ts-steps .ts-now::after{background:var(--ts-accent)}
.ts-steps .ts-now{font-weight:700;color:inherit}
.ts-steps [class*=ts-trouble]::before{background:var(--ts-card);border:4px solid var(--ts-bad)}
.ts-steps .ts-trouble-pickup::before{border-color:var(--ts-accent)}
.ts-alert{border-inline-start:4px solid var(--ts-bad);padding:.5rem .75rem;margin:0 0 1rem;background:rgba(179,38,30,.07)}
.ts-alert-pickup{border-color:var(--ts-accent);background:rgba(128,128,128,.1)}
.ts-alert p{margin:0}
.ts-sub{font-size:1rem;margin:1rem 0 .25rem}
.ts-events{padding-inline-start:1.25rem;margin:0}.ts-events li{margin-bottom:.5rem}.ts-one{list-style:none;padding:0}
.ts-events time{display:block;font-size:.875rem;color:var(--ts-muted)}
.ts-facts{display:grid;grid-template-columns:minmax(0,1fr);margin:1rem 0 0}.ts-facts dt{font-weight:600;font-size:.875rem}.ts-facts dd{margin:0 0 .5rem}
@media (min-width:480px){.ts-facts{grid-template-columns:auto minmax(0,1fr);gap:.25rem 1rem}.ts-facts dt{font-size:1rem}.ts-facts dd{margin:0}}
.ts-items{list-style:none;padding:0;margin:0}.ts-items li{display:flex;gap:.75rem;align-items:center;margin-bottom:.5rem}
.ts-items img,.ts-noimg{width:56px;height:56px;flex:none;border-radius:.5rem;object-fit:cover;background:rgba(128,128,128,.15)}
.ts-items li>span{display:flex;flex-direction:column}.ts-item{font-weight:600}
.ts-more summary,.ts-lookup summary{cursor:pointer;margin:.5rem 0;text-decoration:underline}
.ts-form{display:grid;gap:.5rem;margin:0 0 1.5rem}
.ts input,.ts button{font:inherit;padding:.5rem .75rem;border-radius:.5rem;min-width:0}
.ts-share{margin:0 0 1rem}.ts-share button{margin-inline-start:.5rem}
.ts-contact{margin:1rem 0 0}`;

function documentCss(accent: string): string {
  return `body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f6f6f7}
.ts{--ts-accent:${accent};--ts-on-accent:${textOn(accent)};--ts-muted:#555;--ts-line:#8a8a8a;--ts-bad:#b3261e;--ts-card:#fff}
.ts input{border:1px solid #8a8a8a;background:#fff;color:inherit}
.ts button{border:1px solid var(--ts-accent);background:var(--ts-accent);color:var(--ts-on-accent);cursor:pointer}
.ts a{color:inherit}`;
}

/** In the store's theme: its colours; the accent is the theme's text colour. */
const themeCss = `.ts{--ts-accent:currentColor;--ts-muted:inherit;--ts-line:rgba(128,128,128,.7);--ts-bad:#b3261e;--ts-card:transparent}`;

export function renderProxyPage(page: ProxyPage): string {
  const m = page.messages;
  const result = page.result;
  const settings = page.settings ?? defaultTrackingPageSettings;
  const answer =
    result.kind === 'parcel'
      ? parcelCard(result.parcel, page, 2, null)
      : result.kind === 'order'
        ? orderSection(result, page, 2)
        : result.kind === 'customer'
          ? `<section class="ts-recent"><h2>${text(m.recentOrders)}</h2>${result.orders
              .map((order) => orderSection(order, page, 3))
              .join('\n')}</section>`
          : result.kind === 'not_found'
            ? `<p class="ts-not-found" role="status">${text(m.notFound)}</p>`
            : result.kind === 'expired'
              ? `<p class="ts-not-found" role="status">${text(m.viewExpired)}</p>`
              : result.kind === 'refused'
                ? `<p class="ts-refused" role="alert">${text(fieldLabel(result.field, m))}: ${text(m.unusable)}</p>`
                : '';
  const answered = result.kind === 'parcel' || result.kind === 'order' || result.kind === 'customer';
  const note = Object.hasOwn(settings.messages, page.locale)
    ? (settings.messages as Record<string, string>)[page.locale]
    : undefined;
  const lookup = answered
    ? `<details class="ts-lookup"><summary>${text(m.lookUpAnother)}</summary>${forms(page)}</details>`
    : forms(page);
  const body = `<section class="ts" lang="${text(page.locale)}" dir="${directionOf(page.locale)}">
<h1>${text(m.title)}</h1>
${note ? `<p class="ts-note">${text(note)}</p>` : ''}${answer}
${answered ? shareBlock(page) : ''}${lookup}
${contactLine(page)}
${page.share && answered ? `<script>${copyScript}</script>` : ''}
</section>`;
  if (!page.html) return `<style>${layoutCss}\n${themeCss}</style>\n${body}`;
  return `<!doctype html>
<html lang="${text(page.locale)}" dir="${directionOf(page.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${text(m.title)}</title>
<style>
${layoutCss}
${documentCss(settings.accentColor)}
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}
