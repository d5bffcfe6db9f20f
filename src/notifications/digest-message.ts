import { problemKinds, type ProblemKind, problemWords } from '../shipments/problem-words.js';
import { attentionUrl, storeHandle } from './attention-link.js';

/**
 * What the merchant reads: the daily digest as an e-mail (text and HTML parts) and as a Slack message, and
 * the instant Slack message of new problems. Everything taken from data (the shop's domain, a problem's
 * detail, a tracking number) is escaped for where it goes: HTML for the e-mail's HTML part, Slack's
 * three characters for Slack, and line breaks removed from the subject.
 */

/** One digest: the problems opened since the last one, by kind, and how many closed by themselves. */
export interface DigestContent {
  shopDomain: string;
  /** The shop's local day the digest is for (YYYY-MM-DD). */
  day: string;
  /** Parcels with a problem opened since the last digest, per kind (kinds with none may be left out). */
  opened: Partial<Record<ProblemKind, number>>;
  /**
   * Parcels with a problem opened since the last digest, all kinds (a parcel with two kinds once): the
   * "N new shipment problems" of the heading. Absent: the kinds' sum.
   */
  parcels?: number;
  /** Problems that closed by themselves since (the parcel moved on, was delivered, or is no longer followed). */
  closedByThemselves: number;
}

export interface DigestEmail {
  subject: string;
  text: string;
  html: string;
}

/** A problem as the instant Slack message lists it. */
export interface InstantProblem {
  kind: ProblemKind;
  trackingNumber: string;
  detail: string | null;
}

/** The kinds with at least one problem, in the pages' order, with their counts and links. */
function openedRows(content: DigestContent, appApiKey: string) {
  return problemKinds
    .filter((kind) => (content.opened[kind] ?? 0) > 0)
    .map((kind) => ({
      kind,
      count: content.opened[kind] ?? 0,
      label: problemWords[kind].label,
      todo: problemWords[kind].todo,
      url: attentionUrl(content.shopDomain, appApiKey, kind),
    }));
}

/** The digest's headline count: parcels with new problems (one parcel's troubles count once). */
export function openedTotal(content: DigestContent): number {
  return content.parcels ?? problemKinds.reduce((sum, kind) => sum + (content.opened[kind] ?? 0), 0);
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `&`, `<`, `>`, `"` and `'` as HTML entities: safe in text and in a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** Slack's control characters in text (`&`, `<`, `>`): text from data can then make no link or mention. */
export function escapeSlack(text: string): string {
  return text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] ?? c);
}

/** One line of text: no line breaks or other control characters (a subject, a list item). */
function oneLine(text: string, max = 200): string {
  // C0 control characters and DEL become spaces.
  const clean = [...text].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? ' ' : c)).join('');
  const squeezed = clean.replace(/\s+/g, ' ').trim();
  return squeezed.length > max ? `${squeezed.slice(0, max - 1)}…` : squeezed;
}

const closedLine = (n: number) =>
  `${plural(n, 'problem', 'problems')} closed by ${n === 1 ? 'itself' : 'themselves'} since the last digest (the parcel moved on, was delivered, or is no longer followed).`;

const footer =
  'You get this e-mail because the daily digest is on in the app’s settings: change its hour or its ' +
  'recipients, or switch it off, there.';

/** The digest e-mail: subject, a plain-text part and an HTML part with the same content. */
export function digestEmail(content: DigestContent, appApiKey: string): DigestEmail {
  const store = oneLine(storeHandle(content.shopDomain), 100);
  const total = openedTotal(content);
  const rows = openedRows(content, appApiKey);
  const all = attentionUrl(content.shopDomain, appApiKey);
  const heading = `${plural(total, 'new shipment problem', 'new shipment problems')} since the last digest`;
  const subject = oneLine(`${store}: ${heading} (${content.day})`);

  const text = [
    `Shipment problems at ${store}, ${content.day}`,
    '',
    `${heading}:`,
    ...rows.flatMap((r) => [`  ${r.count}  ${r.label}: ${r.url}`, `     ${r.todo}`]),
    '',
    ...(content.closedByThemselves > 0 ? [closedLine(content.closedByThemselves), ''] : []),
    `Every open problem: ${all}`,
    '',
    footer,
    '',
  ].join('\n');

  const cell = 'padding:4px 12px 4px 0;vertical-align:top';
  const html = [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><title>',
    escapeHtml(subject),
    '</title></head>',
    '<body style="font-family:-apple-system,BlinkMacSystemFont,\'Segoe UI\',Roboto,sans-serif;color:#303030">',
    `<h1 style="font-size:18px">Shipment problems at ${escapeHtml(store)}, ${escapeHtml(content.day)}</h1>`,
    `<p>${escapeHtml(heading)}:</p>`,
    '<table style="border-collapse:collapse">',
    ...rows.map(
      (r) =>
        `<tr><td style="${cell};text-align:right"><strong>${r.count}</strong></td>` +
        `<td style="${cell}"><a href="${escapeHtml(r.url)}">${escapeHtml(r.label)}</a>` +
        `<br><span style="color:#616161">${escapeHtml(r.todo)}</span></td></tr>`,
    ),
    '</table>',
    ...(content.closedByThemselves > 0
      ? [`<p>${escapeHtml(closedLine(content.closedByThemselves))}</p>`]
      : []),
    `<p><a href="${escapeHtml(all)}">See every open problem</a></p>`,
    `<p style="color:#616161;font-size:12px">${escapeHtml(footer)}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { subject, text, html };
}

/** The digest as a Slack message (mrkdwn). */
export function digestSlackText(content: DigestContent, appApiKey: string): string {
  const store = escapeSlack(oneLine(storeHandle(content.shopDomain), 100));
  const total = openedTotal(content);
  const lines = [
    `*Shipment problems at ${store}, ${content.day}*: ${plural(total, 'new problem', 'new problems')} since the last digest`,
    ...openedRows(content, appApiKey).map((r) => `• <${r.url}|${escapeSlack(r.label)}>: ${r.count}`),
  ];
  if (content.closedByThemselves > 0) lines.push(escapeSlack(closedLine(content.closedByThemselves)));
  lines.push(`<${attentionUrl(content.shopDomain, appApiKey)}|See every open problem>`);
  return lines.join('\n');
}

/** Problems listed one by one in an instant message; the rest are counted. */
export const instantListed = 20;

/** New problems as one Slack message: each listed (up to instantListed), the rest counted. */
export function instantSlackText(
  input: { shopDomain: string; problems: InstantProblem[]; total: number },
  appApiKey: string,
): string {
  const store = escapeSlack(oneLine(storeHandle(input.shopDomain), 100));
  const listed = input.problems.slice(0, instantListed);
  const lines = [
    `*${plural(input.total, 'new shipment problem', 'new shipment problems')} at ${store}*`,
    ...listed.map((p) => {
      const label = `<${attentionUrl(input.shopDomain, appApiKey, p.kind)}|${escapeSlack(problemWords[p.kind].label)}>`;
      const detail = p.detail ? `: ${escapeSlack(oneLine(p.detail, 140))}` : '';
      return `• ${label} · ${escapeSlack(oneLine(p.trackingNumber, 100))}${detail}`;
    }),
  ];
  const more = input.total - listed.length;
  if (more > 0) lines.push(`…and ${more} more.`);
  lines.push(`<${attentionUrl(input.shopDomain, appApiKey)}|See every open problem>`);
  return lines.join('\n');
}
