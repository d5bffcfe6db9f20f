import type { TrackingPageSettings } from '../shops/tracking-page-settings.js';
import { progressOf } from '../shipments/shopper-progress.js';
import type { ShopperParcel } from './lookup.js';
import { proxyMessages } from './messages.js';
import { renderProxyPage } from './render.js';

/**
 * The shoppers' page as the merchant's settings would make it, with a sample order (two parcels, one on
 * its way, one delivered), for the admin's live preview: the real renderer, nothing read or stored.
 */
export interface PreviewInput {
  settings: TrackingPageSettings;
  locale: string;
  /** The store's contact e-mail (the contact line's default). */
  contactEmail: string | null;
  /** The store's time zone (IANA). */
  timeZone?: string;
  now?: Date;
}

function day(now: Date, offsetDays: number): string {
  return new Date(now.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

function at(now: Date, offsetHours: number): string {
  return new Date(now.getTime() + offsetHours * 3_600_000).toISOString();
}

export function sampleParcels(now: Date): ShopperParcel[] {
  return [
    {
      trackingNumber: '1Z999AA10123456784',
      group: 'in_transit',
      progress: progressOf('in_transit', null, true),
      carrier: 'UPS',
      lastMile: null,
      deliveredAt: null,
      orderId: '1001',
      fulfillmentId: '1',
      items: [
        { name: 'Linen shirt', variant: 'Blue / M', quantity: 1, imageUrl: null, imageAlt: null },
        { name: 'Canvas tote', variant: null, quantity: 2, imageUrl: null, imageAlt: null },
      ],
      trackingUrl: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
      estimate: { date: day(now, 2), predicted: false },
      events: [
        { at: at(now, -3), message: 'Departed from facility', location: 'Louisville, KY, US' },
        { at: at(now, -20), message: 'Arrived at facility', location: 'Louisville, KY, US' },
        { at: at(now, -30), message: 'Picked up', location: 'Ottawa, ON, CA' },
        { at: at(now, -40), message: 'Label created', location: null },
      ],
      checkedAt: at(now, -1),
    },
    {
      trackingNumber: '9400111899223344556677',
      group: 'delivered',
      progress: progressOf('delivered', null, true),
      carrier: 'USPS',
      lastMile: null,
      deliveredAt: at(now, -26),
      orderId: '1001',
      fulfillmentId: '2',
      items: [{ name: 'Wool socks', variant: 'Grey', quantity: 3, imageUrl: null, imageAlt: null }],
      trackingUrl: null,
      estimate: null,
      events: [
        { at: at(now, -26), message: 'Delivered, in mailbox', location: 'Brooklyn, NY, US' },
        { at: at(now, -30), message: 'Out for delivery', location: 'Brooklyn, NY, US' },
      ],
      checkedAt: at(now, -25),
    },
  ];
}

/** A whole document, as the page's `format=html` answer would be. */
export function renderTrackingPagePreview(input: PreviewInput): string {
  const now = input.now ?? new Date();
  return renderProxyPage({
    action: '/apps/track',
    locale: input.locale,
    messages: proxyMessages(input.locale),
    tracking: '',
    order: '#1001',
    html: true,
    localeParam: input.locale,
    settings: input.settings,
    contactEmail: input.contactEmail,
    timeZone: input.timeZone ?? 'UTC',
    share: { href: '/apps/track', validUntil: day(now, 60) },
    result: { kind: 'order', orderName: '#1001', parcels: sampleParcels(now) },
  });
}
