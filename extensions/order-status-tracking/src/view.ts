/**
 * What the order status extension shows of a parcel, from the app's answer
 * (`GET /customer-account/parcels`, src/proxy/order-status.ts): the step's label and "Step n of 5", the
 * trouble on it, the estimate ("Arriving Friday, 27 November", "Expected by …", "Delivered on …"), the
 * latest event's line and the link to the store's tracking page. Pure: no platform import, no network, no
 * clock; the words come through `translate` (the platform's `shopify.i18n.translate` in the extension, the
 * locale files in the tests), dates through Intl. test/extensions/order-status-view.test.ts holds it.
 */

/** The journey's steps, as the app names them (src/shipments/parcel-model.ts; a test holds the two equal). */
export const progressSteps = ['ordered', 'shipped', 'in_transit', 'out_for_delivery', 'delivered'] as const;
export type ProgressStep = (typeof progressSteps)[number];

/** What can go wrong on a step (src/shipments/parcel-model.ts; a test holds the two equal). */
export const troubles = [
  'exception',
  'failed_attempt',
  'on_hold',
  'returning',
  'pickup',
  'tracking_unavailable',
  'cancelled',
] as const;
export type Trouble = (typeof troubles)[number];

/** One parcel of the app's answer. */
export interface AnswerParcel {
  trackingNumber: string;
  carrier: string | null;
  step: ProgressStep;
  stepIndex: number;
  trouble: Trouble | null;
  estimate: { date: string; predicted: boolean } | null;
  deliveredAt: string | null;
  latestEvent: { at: string | null; message: string; location: string | null } | null;
  pageUrl: string;
}

export interface ParcelsAnswer {
  parcels: AnswerParcel[];
}

/** Where the extension asks for one fulfilment's parcels (the app's route: src/proxy/order-status.ts). */
export const parcelsPath = '/customer-account/parcels';

/** At most this many parcels are shown under one fulfilment. */
const maxParcels = 20;

const isText = (value: unknown): value is string => typeof value === 'string';
const isTextOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parcelOf(value: unknown): AnswerParcel | null {
  if (!isObject(value)) return null;
  const { trackingNumber, carrier, step, stepIndex, trouble, estimate, deliveredAt, latestEvent, pageUrl } =
    value;
  if (!isText(trackingNumber) || !isTextOrNull(carrier) || !isTextOrNull(deliveredAt)) return null;
  if (!(progressSteps as readonly unknown[]).includes(step)) return null;
  if (stepIndex !== progressSteps.indexOf(step as ProgressStep)) return null;
  if (trouble !== null && !(troubles as readonly unknown[]).includes(trouble)) return null;
  if (
    estimate !== null &&
    !(isObject(estimate) && isText(estimate.date) && typeof estimate.predicted === 'boolean')
  )
    return null;
  if (
    latestEvent !== null &&
    !(
      isObject(latestEvent) &&
      isTextOrNull(latestEvent.at) &&
      isText(latestEvent.message) &&
      isTextOrNull(latestEvent.location)
    )
  )
    return null;
  // Only a link to a store's https page is ever shown.
  if (!isText(pageUrl) || !/^https:\/\/[^/\s]+\//.test(pageUrl)) return null;
  return {
    trackingNumber,
    carrier,
    step: step as ProgressStep,
    stepIndex,
    trouble: trouble as Trouble | null,
    estimate: estimate as AnswerParcel['estimate'],
    deliveredAt,
    latestEvent: latestEvent
      ? {
          at: latestEvent.at as string | null,
          message: latestEvent.message as string,
          location: latestEvent.location as string | null,
        }
      : null,
    pageUrl,
  };
}

/** The app's answer, checked field by field; null when it is not one (then nothing is shown). */
export function parseParcelsAnswer(value: unknown): ParcelsAnswer | null {
  if (!isObject(value) || !Array.isArray(value.parcels)) return null;
  const parcels = value.parcels.slice(0, maxParcels).map(parcelOf);
  return parcels.every((p) => p !== null) ? { parcels: parcels as AnswerParcel[] } : null;
}

/**
 * The request for a fulfilment's parcels: the fulfilment as the target API gives it (a GID; a bare
 * numeric id is written as one) and the buyer's language, for the tracking page's link.
 */
export function parcelsRequestUrl(appUrl: string, fulfillmentId: string, locale: string): string {
  const fulfillment = /^\d+$/.test(fulfillmentId)
    ? `gid://shopify/Fulfillment/${fulfillmentId}`
    : fulfillmentId;
  const params = new URLSearchParams({ fulfillment, locale });
  return `${appUrl.replace(/\/+$/, '')}${parcelsPath}?${params.toString()}`;
}

/** The platform's `i18n.translate` as this module uses it: a key of the locale files, `{{name}}` filled. */
export type Translate = (key: string, replacements?: Record<string, string | number>) => string;

export interface ViewContext {
  /** The buyer's language (a BCP 47 tag: `en`, `de`, `pt-BR`), for dates. */
  locale: string;
  translate: Translate;
  /** The zone delivery and event times are shown in (default: the device's). */
  timeZone?: string;
}

/** Badge icons the package's `s-badge` takes that this view uses. */
export type ParcelIcon =
  'delivered' | 'delivery' | 'truck' | 'order' | 'alert-triangle' | 'store' | 'x-circle';

export interface ParcelView {
  trackingNumber: string;
  carrier: string | null;
  /** The locale key of the step's label (`step.in_transit`) and the label. */
  stepKey: `step.${ProgressStep}`;
  stepLabel: string;
  /** 1 (ordered) to 5 (delivered), and "Step 3 of 5". */
  stepNumber: number;
  stepCount: number;
  stepOf: string;
  /** The progress bar's accessible name: "Shipping progress: Step 3 of 5". */
  progressLabel: string;
  /** The badge: critical when something is wrong that the shopper may act on. */
  tone: 'auto' | 'critical';
  icon: ParcelIcon;
  trouble: { key: Trouble; title: string; advice: string } | null;
  /** "Arriving …", "Expected by …", "Delivered on …"; null when no date is known. */
  estimate: string | null;
  /** "Latest update: message · place · time"; null before the carrier's first scan. */
  latestEvent: string | null;
  link: { href: string; label: string };
}

const stepIcons: Record<ProgressStep, ParcelIcon> = {
  ordered: 'order',
  shipped: 'delivery',
  in_transit: 'truck',
  out_for_delivery: 'truck',
  delivered: 'delivered',
};

const troubleIcons: Record<Trouble, ParcelIcon> = {
  exception: 'alert-triangle',
  failed_attempt: 'alert-triangle',
  on_hold: 'alert-triangle',
  returning: 'alert-triangle',
  pickup: 'store',
  tracking_unavailable: 'alert-triangle',
  cancelled: 'x-circle',
};

/**
 * A date as its weekday and day in the buyer's language, as the shoppers' page writes it
 * (src/proxy/render.ts `weekdayDate`): "Friday, 27 November" in English, "Freitag, 27. November" in German.
 */
function weekdayDay(date: Date, locale: string, timeZone: string | undefined): string {
  const options: Intl.DateTimeFormatOptions = { weekday: 'long', day: 'numeric', month: 'long', timeZone };
  if (locale !== 'en') return new Intl.DateTimeFormat(locale, options).format(date);
  const parts = new Intl.DateTimeFormat('en-GB', options).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')}, ${part('day')} ${part('month')}`;
}

/** An estimate's date text (YYYY-MM-DD first: a calendar day, no zone) as a weekday and day; else as given. */
export function estimateDay(text: string, locale: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!match) return text;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return Number.isNaN(date.getTime()) ? text : weekdayDay(date, locale, 'UTC');
}

function timeOf(iso: string | null, locale: string, timeZone: string | undefined): string | null {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(date);
}

function estimateLine(parcel: AnswerParcel, context: ViewContext): string | null {
  const { locale, translate, timeZone } = context;
  if (parcel.step === 'delivered') {
    const at = parcel.deliveredAt ? new Date(parcel.deliveredAt) : null;
    return at && !Number.isNaN(at.getTime())
      ? translate('estimate.delivered_on', { day: weekdayDay(at, locale, timeZone) })
      : null;
  }
  if (!parcel.estimate) return null;
  const day = estimateDay(parcel.estimate.date, locale);
  return translate(parcel.estimate.predicted ? 'estimate.expected_by' : 'estimate.arriving', { day });
}

function latestEventLine(parcel: AnswerParcel, context: ViewContext): string | null {
  const event = parcel.latestEvent;
  if (!event || event.message.trim() === '') return null;
  const parts = [
    event.message.trim(),
    event.location?.trim() ?? '',
    timeOf(event.at, context.locale, context.timeZone) ?? '',
  ];
  return context.translate('latest_event', { event: parts.filter((p) => p !== '').join(' · ') });
}

/** What to show of one parcel. */
export function parcelView(parcel: AnswerParcel, context: ViewContext): ParcelView {
  const { translate } = context;
  const stepKey = `step.${parcel.step}` as const;
  const stepNumber = progressSteps.indexOf(parcel.step) + 1;
  const trouble = parcel.trouble;
  const stepOf = translate('step_of', { n: stepNumber, total: progressSteps.length });
  return {
    trackingNumber: parcel.trackingNumber,
    carrier: parcel.carrier,
    stepKey,
    stepLabel: translate(stepKey),
    stepNumber,
    stepCount: progressSteps.length,
    stepOf,
    progressLabel: `${translate('progress')}: ${stepOf}`,
    tone: trouble && trouble !== 'pickup' ? 'critical' : 'auto',
    icon: trouble ? troubleIcons[trouble] : stepIcons[parcel.step],
    trouble: trouble
      ? {
          key: trouble,
          title: translate(`trouble.${trouble}.title`),
          advice: translate(`trouble.${trouble}.advice`),
        }
      : null,
    estimate: estimateLine(parcel, context),
    latestEvent: latestEventLine(parcel, context),
    link: { href: parcel.pageUrl, label: translate('full_tracking') },
  };
}
