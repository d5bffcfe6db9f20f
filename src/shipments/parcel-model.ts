/**
 * The one model of a parcel: for every status code (and every state of the tracking service's own
 * trackers) ONE row that says everything any view says of it — its group, label and tone, whether it is
 * final or trouble, how often it is read, the store platform's fulfilment-event status, the problem it
 * raises, the shopper's step, and the one piece of advice and the one action. The Shipments list and its
 * timeline, Needs attention, the Overview, Settings' carriers, the CSV, the CLI, the shoppers' page, the
 * order status extension, the digest, Slack and Flow all read it (`parcelOf`), and the SQL that classifies
 * stored rows is generated from it (src/shipments/status-table.ts), so no view can tell a parcel two ways.
 *
 * Plain TypeScript with no imports: the page's bundle uses it too (through src/ui/vocabulary.ts).
 *
 * Stored statuses are normalised (`normaliseStatusCode`: lower case, `_` for spaces and hyphens); a code
 * with no row is a parcel still moving (in transit) and is named by its own words.
 */

/* ------------------------------------------------------------------ the vocabularies the rows use */

/** The parcel's status in groups the merchant filters by. */
export const parcelGroups = [
  'not_scanned',
  'info_received',
  'in_transit',
  'out_for_delivery',
  'ready_for_pickup',
  'failed_attempt',
  'exception',
  'not_followed',
  'delivered',
  'ended',
] as const;
export type ParcelGroup = (typeof parcelGroups)[number];

/** How the admin's badges read a parcel. */
export type StatusTone = 'pending' | 'transit' | 'delivered' | 'exception' | 'ended';

/** How often a parcel is read: its PollPolicy interval (src/shipments/status.ts); `stopped`: never again. */
export type PollCadence = 'pre_transit' | 'moving' | 'out_for_delivery' | 'stopped';

/** The platform's FulfillmentEventStatus values tracksync writes. */
export type PlatformEventStatus =
  | 'LABEL_PRINTED'
  | 'CARRIER_PICKED_UP'
  | 'IN_TRANSIT'
  | 'OUT_FOR_DELIVERY'
  | 'ATTEMPTED_DELIVERY'
  | 'READY_FOR_PICKUP'
  | 'DELAYED'
  | 'DELIVERED'
  | 'FAILURE';

/** The kinds of shipment problem (src/shipments/problems.ts). */
export const problemKinds = [
  'not_picked_up',
  'stalled',
  'past_estimate',
  'slower_than_usual',
  'carrier_exception',
  'failed_attempt',
  'on_hold',
  'returning',
  'waiting_pickup',
  'tracking_problem',
] as const;
export type ProblemKind = (typeof problemKinds)[number];

/** The shopper's steps (the tracking page draws them, the order status extension names one). */
export const progressSteps = ['ordered', 'shipped', 'in_transit', 'out_for_delivery', 'delivered'] as const;
export type ProgressStep = (typeof progressSteps)[number];

/** Something the shopper should know about, shown on the step it happened at. */
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

/** Where the merchant acts on a parcel (a page of the app and its section, or outside the app). */
export type ActionPlace =
  'settings_carriers' | 'settings_connection' | 'store_fulfilment' | 'carrier' | 'customer' | 'none';

/** The one action a parcel asks for: its words, where the merchant acts, and whether the app does it. */
export interface ParcelAction {
  label: string;
  place: ActionPlace;
  /** True: the app does it by itself (the merchant only waits); false: the merchant must act. */
  byApp: boolean;
}

/** Where each place is in the app (page and section), for a link; null: outside the app. */
export const actionPlaces: Record<ActionPlace, { page: string; section: string } | null> = {
  settings_carriers: { page: 'settings', section: 'carriers' },
  settings_connection: { page: 'settings', section: 'connection' },
  store_fulfilment: null,
  carrier: null,
  customer: null,
  none: null,
};

/* ------------------------------------------------------------------ the rows */

/** Everything the app says of a parcel whose status (or, where it tells more, detail) is this code. */
export interface StatusRow {
  group: ParcelGroup;
  label: string;
  tone: StatusTone;
  /** Polling stops: the story is over, or the service will not follow this tracker any more. */
  final: boolean;
  /** The merchant should look (the attention list, the health line, the analytics' trouble). */
  trouble: boolean;
  cadence: PollCadence;
  /** The service's own state, about the tracker rather than the parcel. */
  trackerState: boolean;
  /**
   * As the detail of a moving status (in_transit), this code says more and the parcel is read by it
   * (out for delivery, ready for pickup, a failed attempt, picked up).
   */
  overridesMoving: boolean;
  /** The status is a moving one, whose detail may say more. */
  moving: boolean;
  /**
   * The platform's event status, as an event's status and as its detail; null as a whole: no event is
   * written whatever detail comes with it (the service's own states, a cancelled label).
   */
  platform: { asStatus: PlatformEventStatus | null; asDetail: PlatformEventStatus | null } | null;
  /** The problem this status raises (src/shipments/problems.ts), or the waiting kind it may grow into. */
  problem: ProblemKind | null;
  /** The shopper's step; `where_it_was`: in transit once the carrier reported it, else shipped. */
  shopperStep: ProgressStep | 'where_it_was';
  shopperTrouble: Trouble | null;
  /** An estimate is shown (page, CSV, CLI, shopper page): false once it can mean nothing. */
  estimates: boolean;
  /** The one piece of advice for the merchant; null: nothing to do but wait. */
  advice: string | null;
  action: ParcelAction | null;
}

type Shape = Pick<StatusRow, 'group' | 'label'> & Partial<StatusRow>;

const groupTones: Record<ParcelGroup, StatusTone> = {
  not_scanned: 'pending',
  info_received: 'pending',
  in_transit: 'transit',
  out_for_delivery: 'transit',
  ready_for_pickup: 'transit',
  failed_attempt: 'exception',
  exception: 'exception',
  not_followed: 'exception',
  delivered: 'delivered',
  ended: 'ended',
};

/** What a group's rows share unless a row says otherwise. */
function groupDefaults(group: ParcelGroup): Omit<StatusRow, 'group' | 'label'> {
  const trouble = group === 'failed_attempt' || group === 'exception' || group === 'not_followed';
  const final = group === 'delivered' || group === 'ended';
  const base = {
    tone: groupTones[group],
    final,
    trouble,
    cadence: final
      ? 'stopped'
      : group === 'not_scanned' || group === 'info_received'
        ? 'pre_transit'
        : group === 'out_for_delivery'
          ? 'out_for_delivery'
          : 'moving',
    trackerState: false,
    overridesMoving: false,
    moving: false,
    platform: { asStatus: null, asDetail: null },
    estimates: group !== 'not_followed' && group !== 'ended',
    advice: null,
    action: null,
  } satisfies Partial<StatusRow>;
  switch (group) {
    case 'not_scanned':
    case 'info_received':
      return { ...base, problem: 'not_picked_up', shopperStep: 'shipped', shopperTrouble: null };
    case 'in_transit':
      return { ...base, problem: 'stalled', shopperStep: 'in_transit', shopperTrouble: null };
    case 'out_for_delivery':
      return { ...base, problem: 'stalled', shopperStep: 'out_for_delivery', shopperTrouble: null };
    case 'ready_for_pickup':
      return {
        ...base,
        problem: 'waiting_pickup',
        shopperStep: 'out_for_delivery',
        shopperTrouble: 'pickup',
        advice: 'The parcel waits for the customer at a pickup point: remind them before it is sent back.',
        action: { label: 'Remind the customer', place: 'customer', byApp: false },
      };
    case 'failed_attempt':
      return {
        ...base,
        problem: 'failed_attempt',
        shopperStep: 'out_for_delivery',
        shopperTrouble: 'failed_attempt',
        advice: 'The carrier could not deliver: check the address with the customer.',
        action: { label: 'Check the address with the customer', place: 'customer', byApp: false },
      };
    case 'exception':
      return {
        ...base,
        problem: 'carrier_exception',
        shopperStep: 'where_it_was',
        shopperTrouble: 'exception',
        advice: 'The carrier reports a problem: read the last event and contact the carrier if needed.',
        action: { label: 'Contact the carrier', place: 'carrier', byApp: false },
      };
    case 'not_followed':
      return {
        ...base,
        problem: 'tracking_problem',
        shopperStep: 'where_it_was',
        shopperTrouble: 'tracking_unavailable',
        trackerState: true,
        platform: null,
      };
    case 'delivered':
      return { ...base, problem: null, shopperStep: 'delivered', shopperTrouble: null };
    case 'ended':
      return { ...base, problem: null, shopperStep: 'shipped', shopperTrouble: 'cancelled' };
  }
}

function row(shape: Shape): StatusRow {
  return { ...groupDefaults(shape.group), ...shape };
}

const labelCreated = 'Label created';
const mapCarrier: ParcelAction = { label: 'Map the carrier', place: 'settings_carriers', byApp: false };
const returning = {
  problem: 'returning',
  shopperStep: 'in_transit',
  shopperTrouble: 'returning',
  advice: 'The parcel is on its way back: contact the customer about a reshipment or a refund.',
  action: { label: 'Contact the customer', place: 'customer', byApp: false },
} satisfies Partial<StatusRow>;
const onHold = {
  shopperStep: 'in_transit',
  shopperTrouble: 'on_hold',
  platform: { asStatus: 'DELAYED', asDetail: 'DELAYED' },
} satisfies Partial<StatusRow>;

/**
 * One row per code. The service names only pre_transit, in_transit and delivered (status_detail adds
 * label_created, picked_up, out_for_delivery, ...) and says its list is not complete; the other spellings
 * are the usual ones of tracking services. The service's `failure` is "Delivery Failure": a failed delivery
 * attempt, not the platform's FAILURE (for a parcel that will not arrive).
 */
export const statusRows: Readonly<Record<string, StatusRow>> = {
  // No scan yet.
  pending: row({ group: 'not_scanned', label: 'Pending' }),
  pending_trackship: row({
    group: 'not_scanned',
    label: 'Waiting for the first scan',
    trackerState: true,
    platform: null,
    advice: 'Nothing to do: the first data is on its way.',
    action: { label: 'Wait for the first scan', place: 'none', byApp: true },
  }),
  unknown: row({ group: 'not_scanned', label: 'Unknown' }),
  // The label exists; the carrier has not moved the parcel yet (read at the pre-transit cadence).
  info_received: row({
    group: 'info_received',
    label: labelCreated,
    platform: { asStatus: 'LABEL_PRINTED', asDetail: null },
  }),
  label_created: row({
    group: 'info_received',
    label: labelCreated,
    platform: { asStatus: null, asDetail: 'LABEL_PRINTED' },
  }),
  label_printed: row({
    group: 'info_received',
    label: labelCreated,
    platform: { asStatus: null, asDetail: 'LABEL_PRINTED' },
  }),
  pre_transit: row({
    group: 'info_received',
    label: labelCreated,
    platform: { asStatus: 'LABEL_PRINTED', asDetail: null },
  }),
  // Moving.
  in_transit: row({
    group: 'in_transit',
    label: 'In transit',
    moving: true,
    platform: { asStatus: 'IN_TRANSIT', asDetail: null },
  }),
  transit: row({
    group: 'in_transit',
    label: 'In transit',
    moving: true,
    platform: { asStatus: 'IN_TRANSIT', asDetail: null },
  }),
  picked_up: row({
    group: 'in_transit',
    label: 'Picked up',
    overridesMoving: true,
    platform: { asStatus: null, asDetail: 'CARRIER_PICKED_UP' },
  }),
  weather_delay: row({
    group: 'in_transit',
    label: 'Weather delay',
    platform: { asStatus: null, asDetail: 'DELAYED' },
  }),
  out_for_delivery: row({
    group: 'out_for_delivery',
    label: 'Out for delivery',
    overridesMoving: true,
    platform: { asStatus: 'OUT_FOR_DELIVERY', asDetail: 'OUT_FOR_DELIVERY' },
  }),
  available_for_pickup: row({
    group: 'ready_for_pickup',
    label: 'Ready for pickup',
    overridesMoving: true,
    platform: { asStatus: 'READY_FOR_PICKUP', asDetail: 'READY_FOR_PICKUP' },
  }),
  ready_for_pickup: row({
    group: 'ready_for_pickup',
    label: 'Ready for pickup',
    overridesMoving: true,
    platform: { asStatus: null, asDetail: 'READY_FOR_PICKUP' },
  }),
  // A failed delivery attempt.
  attempt_fail: row({
    group: 'failed_attempt',
    label: 'Delivery attempt failed',
    overridesMoving: true,
    platform: { asStatus: 'ATTEMPTED_DELIVERY', asDetail: 'ATTEMPTED_DELIVERY' },
  }),
  failed_attempt: row({
    group: 'failed_attempt',
    label: 'Delivery attempt failed',
    overridesMoving: true,
    platform: { asStatus: null, asDetail: 'ATTEMPTED_DELIVERY' },
  }),
  failure: row({
    group: 'failed_attempt',
    label: 'Delivery attempt failed',
    platform: { asStatus: 'ATTEMPTED_DELIVERY', asDetail: 'ATTEMPTED_DELIVERY' },
  }),
  delivery_attempted: row({
    group: 'failed_attempt',
    label: 'Delivery attempt failed',
    overridesMoving: true,
    platform: { asStatus: null, asDetail: 'ATTEMPTED_DELIVERY' },
  }),
  // The carrier reports a problem.
  exception: row({
    group: 'exception',
    label: 'Exception',
    platform: { asStatus: 'DELAYED', asDetail: null },
  }),
  error: row({ group: 'exception', label: 'Exception' }),
  failed: row({ group: 'exception', label: 'Exception', platform: { asStatus: 'FAILURE', asDetail: null } }),
  delayed: row({ group: 'exception', label: 'Delayed', ...onHold }),
  on_hold: row({
    group: 'exception',
    label: 'On hold',
    ...onHold,
    problem: 'on_hold',
    advice: 'The carrier holds the parcel (customs, address, payment): find out what it needs.',
    action: { label: 'Ask the carrier what it needs', place: 'carrier', byApp: false },
  }),
  undeliverable: row({
    group: 'exception',
    label: 'Undeliverable',
    platform: { asStatus: 'FAILURE', asDetail: null },
  }),
  return_to_sender: row({
    group: 'exception',
    label: 'Returned',
    final: true,
    cadence: 'stopped',
    ...returning,
    platform: { asStatus: 'FAILURE', asDetail: 'FAILURE' },
  }),
  returned: row({ group: 'exception', label: 'Returned', final: true, cadence: 'stopped', ...returning }),
  // The service does not (or no longer) follow the tracker: a tracking problem, never a parcel exception.
  connection_issue: row({
    group: 'not_followed',
    label: 'Not followed: connection problem',
    advice:
      'The tracking service cannot reach the store (it needs the store address over HTTPS): check the connection in Settings.',
    action: { label: 'Check the connection', place: 'settings_connection', byApp: false },
  }),
  invalid_tracking: row({
    group: 'not_followed',
    label: 'Not followed: invalid tracking number',
    final: true,
    cadence: 'stopped',
    advice: 'Check the tracking number on the fulfilment in the store; a corrected number is followed anew.',
    action: { label: 'Correct the number in the store', place: 'store_fulfilment', byApp: false },
  }),
  invalid_carrier: row({
    group: 'not_followed',
    label: 'Not followed: wrong carrier',
    final: true,
    cadence: 'stopped',
    advice: 'Map this carrier to the right one in Settings → Carrier mapping; the app then follows it anew.',
    action: mapCarrier,
  }),
  carrier_unsupported: row({
    group: 'not_followed',
    label: 'Not followed: carrier not supported',
    final: true,
    cadence: 'stopped',
    advice:
      'The tracking service does not support this carrier: map it to a supported one in Settings → Carrier mapping.',
    action: mapCarrier,
  }),
  expired: row({
    group: 'not_followed',
    label: 'Expired',
    final: true,
    cadence: 'stopped',
    advice: 'No update for two months: the tracking service stopped following it.',
    action: null,
  }),
  deleted: row({
    group: 'not_followed',
    label: 'Removed at the tracking service',
    final: true,
    cadence: 'stopped',
    advice: 'The tracker was deleted at the tracking service, so its status is no longer updated.',
    action: null,
  }),
  // Over.
  delivered: row({
    group: 'delivered',
    label: 'Delivered',
    platform: { asStatus: 'DELIVERED', asDetail: 'DELIVERED' },
  }),
  cancelled: row({ group: 'ended', label: 'Cancelled' }),
  canceled: row({ group: 'ended', label: 'Cancelled' }),
  label_cancelled: row({ group: 'ended', label: 'Label cancelled', platform: null }),
};

/** What a code with no row is: a parcel still moving, named by its own words. */
const movingDefault: StatusRow = row({ group: 'in_transit', label: 'In transit' });
/** No status read yet. */
const noScan: StatusRow = row({ group: 'not_scanned', label: 'No scan yet' });

/**
 * A fulfilment (or order) cancelled in the store: the line ended there, whatever the tracker last said.
 * It shows its cancellation and no estimate anywhere.
 */
export const endedRows: Readonly<
  Record<'order_cancelled' | 'fulfillment_cancelled' | 'number_removed', StatusRow>
> = {
  order_cancelled: row({ group: 'ended', label: 'Order cancelled', cadence: 'stopped', final: true }),
  fulfillment_cancelled: row({
    group: 'ended',
    label: 'Fulfilment cancelled',
    cadence: 'stopped',
    final: true,
  }),
  number_removed: row({
    group: 'ended',
    label: 'Number removed from the fulfilment',
    cadence: 'stopped',
    final: true,
  }),
};

/* ------------------------------------------------------------------ reading the rows */

export function normaliseStatusCode(value: string | null | undefined): string {
  return (value ?? '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

function words(code: string): string {
  const text = code.replace(/_/g, ' ').trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The row of one code (normalised or not); a code with no row reads as moving, in its own words. */
export function statusRowOf(code: string | null | undefined): StatusRow {
  const c = normaliseStatusCode(code);
  if (c === '') return noScan;
  return statusRows[c] ?? { ...movingDefault, label: words(c) };
}

/** A parcel as every view tells it. */
export interface Parcel extends StatusRow {
  /** The stored status code (normalised), '' when none was read yet. */
  code: string;
  detail: string | null;
}

/**
 * The parcel of a stored status and detail. The status's row decides, except where the detail says more:
 * a moving status's detail naming a group or step of its own (out for delivery, ready for pickup, a failed
 * attempt, picked up), and an exception's detail naming which exception (on hold, returning…). Final is
 * the status's own (polling stops on the status the service gives). `ended`: the line's store-side ending
 * (order or fulfilment cancelled, number removed), which outweighs what the tracker last said.
 */
export function parcelOf(
  status: string | null | undefined,
  detail?: string | null,
  ended?: string | null,
): Parcel {
  const code = normaliseStatusCode(status);
  const detailCode = normaliseStatusCode(detail) || null;
  const endedRow = ended ? endedRows[ended as keyof typeof endedRows] : undefined;
  if (endedRow) return { ...endedRow, code, detail: detailCode };
  const own = statusRowOf(code);
  const byDetail = detailCode !== null ? statusRows[detailCode] : undefined;
  let chosen = own;
  if (byDetail && own.moving && byDetail.overridesMoving) chosen = byDetail;
  else if (byDetail && own.group === 'exception' && byDetail.group === 'exception') chosen = byDetail;
  return {
    ...chosen,
    final: own.final,
    cadence: own.final ? 'stopped' : chosen.cadence,
    code,
    detail: detailCode,
  };
}

/** The group of a status (and its detail); no status read yet: not_scanned. */
export function parcelGroupOf(status: string | null | undefined, detail?: string | null): ParcelGroup {
  return parcelOf(status, detail).group;
}

export function isFinalStatus(status: string | null | undefined): boolean {
  return statusRowOf(status).final;
}

/** Needs the merchant: a failed attempt, an exception, or a tracker the service does not follow. */
export function isTroubleStatus(status: string | null | undefined, detail?: string | null): boolean {
  return parcelOf(status, detail).trouble;
}

/**
 * The platform status of one event, from its detail first (more precise), then its status; null when the
 * platform has no counterpart, and always for the service's own states and a cancelled label (they say
 * nothing about the parcel, whatever detail comes with them).
 */
export function platformStatusOf(status: string | null | undefined, detail: string | null | undefined) {
  const own = statusRowOf(status);
  if (own.platform === null) return null;
  const d = normaliseStatusCode(detail);
  const asDetail = d ? (statusRows[d]?.platform?.asDetail ?? null) : null;
  return asDetail ?? own.platform.asStatus;
}

/** The shopper's step and trouble; `moved`: the carrier reported the parcel at all (any event). */
export function shopperProgressOf(
  parcel: Pick<StatusRow, 'shopperStep' | 'shopperTrouble'>,
  moved: boolean,
): { step: ProgressStep; index: number; trouble: Trouble | null } {
  const step =
    parcel.shopperStep === 'where_it_was' ? (moved ? 'in_transit' : 'shipped') : parcel.shopperStep;
  return { step, index: progressSteps.indexOf(step), trouble: parcel.shopperTrouble };
}

/* ------------------------------------------------------------------ lists the SQL and the filters read */

const codesWhere = (keep: (r: StatusRow) => boolean) =>
  Object.entries(statusRows)
    .filter(([, r]) => keep(r))
    .map(([code]) => code);

/** Which status codes make each group (a code in none is in transit). */
export const parcelGroupStatuses = Object.fromEntries(
  parcelGroups.filter((g) => g !== 'in_transit').map((g) => [g, codesWhere((r) => r.group === g)]),
) as unknown as Record<Exclude<ParcelGroup, 'in_transit'>, readonly string[]>;

/** Moving statuses whose detail may name a group of its own. */
export const movingStatuses: readonly string[] = codesWhere((r) => r.moving);

/** The details that move a moving status into another group. */
export const groupByDetail: Readonly<Partial<Record<string, ParcelGroup>>> = Object.fromEntries(
  Object.entries(statusRows)
    .filter(([, r]) => r.overridesMoving && r.group !== 'in_transit')
    .map(([code, r]) => [code, r.group]),
);

/** The codes at which polling stops. */
export const finalStatuses: readonly string[] = codesWhere((r) => r.final);

/** The groups that need the merchant. */
export const troubleGroups: readonly ParcelGroup[] = parcelGroups.filter((g) => groupDefaults(g).trouble);

/** How the admin's badges read a group. */
export const parcelGroupStatusTones: Record<ParcelGroup, StatusTone> = groupTones;

/** Each group's name, for the filters and the Overview's chart. */
export const parcelGroupLabels: Record<ParcelGroup, string> = {
  not_scanned: 'No scan yet',
  info_received: labelCreated,
  in_transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  ready_for_pickup: 'Ready for pickup',
  failed_attempt: 'Delivery attempt failed',
  exception: 'Exception',
  not_followed: 'Not followed by the tracking service',
  delivered: 'Delivered',
  ended: 'Ended',
};

/** A stored code (a status or a detail) in the merchant's words; never the raw code. */
export function codeWords(code: string | null | undefined): string | null {
  const c = normaliseStatusCode(code);
  if (c === '') return null;
  return statusRows[c]?.label ?? endedRows[c as keyof typeof endedRows]?.label ?? null;
}
