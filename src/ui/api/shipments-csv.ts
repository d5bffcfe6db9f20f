import type { ShipmentListRow } from './shipment-list.js';

/**
 * The shipments list as CSV (RFC 4180, UTF-8 with a byte-order mark so spreadsheet apps read accents):
 * the words the page shows, one row per shipment (the parcel's label and advice are the parcel model's, as
 * on the page; a cancelled fulfilment has no estimate; the last column is the carrier's own tracking page,
 * from the store's fulfilment). A cell that a spreadsheet would run as a formula
 * (starting with = + - @, a tab or a carriage return) is prefixed with an apostrophe.
 */

export const csvHeader = [
  'Order',
  'Fulfilment',
  'Tracking number',
  'Carrier',
  'Parcel status',
  'What to do',
  'Sync',
  'Estimated delivery',
  'Last event',
  'Last event at',
  'Created at',
  'Carrier tracking page',
];

export const byteOrderMark = '\uFEFF';

export function csvCell(value: string | null | undefined): string {
  let text = value ?? '';
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: Array<string | null | undefined>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export function csvRow(row: ShipmentListRow): string {
  return csvLine([
    row.orderName ?? row.orderId,
    row.fulfillmentName,
    row.trackingNumber,
    row.providerLabel ?? row.carrierName ?? row.provider,
    row.parcel.label,
    row.parcel.advice,
    row.sync.reason ? `${row.sync.label}: ${row.sync.reason}` : row.sync.label,
    row.estimatedDelivery,
    row.lastEvent?.message ?? null,
    row.lastEvent?.at ?? null,
    row.createdAt,
    row.trackingUrl,
  ]);
}

/** The file's name: tracksync-shipments-YYYY-MM-DD.csv (UTC). */
export function csvFileName(now: Date = new Date()): string {
  return `tracksync-shipments-${now.toISOString().slice(0, 10)}.csv`;
}
