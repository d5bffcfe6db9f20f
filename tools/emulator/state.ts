/** The emulator's whole mutable state: accounts, trackers, call log, scripted answers, faults and clock. */
import { z } from 'zod';
import { CallLog } from './call-log.js';
import { type Carrier, findCarrier } from './carriers.js';
import type { VirtualClock } from './clock.js';
import type { FaultController } from './faults.js';
import { type ShipmentSnapshot, shipmentSnapshot, type TrackingStatus } from './lifecycle.js';
import { ScriptQueue } from './script.js';

/** Where the account's tracking webhook goes (http or https). */
const webhookUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'webhookUrl must be an http(s) URL');

export const accountSchema = z.strictObject({
  apiKey: z.string().min(1),
  appName: z.string().min(1),
  plan: z.string().min(1).default('Free'),
  balance: z.number().int().min(0).default(100),
  https: z.boolean().default(true),
  /** The account's tracking webhook: every new tracking event is POSTed there (tools/emulator/pushes.ts). */
  webhookUrl: webhookUrl.nullable().default(null),
});
export type Account = z.output<typeof accountSchema>;
export type AccountInput = z.input<typeof accountSchema>;

export const accountPatchSchema = z.strictObject({
  balance: z.number().int().min(0).optional(),
  plan: z.string().min(1).optional(),
  https: z.boolean().optional(),
  /** null: no webhook. */
  webhookUrl: webhookUrl.nullable().optional(),
});

/** An account as shown by the control API: never the api key. */
export interface AccountView {
  appName: string;
  plan: string;
  balance: number;
  https: boolean;
  webhookUrl: string | null;
}

/** The account used when none is configured. */
export const demoAccount: Account = Object.freeze({
  apiKey: 'demo-api-key',
  appName: 'demo-store',
  plan: 'Free',
  balance: 100,
  https: true,
  webhookUrl: null,
});

export interface Tracker {
  /** Creation sequence number (unique, increasing). */
  readonly seq: number;
  readonly appName: string;
  readonly trackingNumber: string;
  readonly provider: string;
  readonly carrier: Carrier;
  readonly orderId: string;
  readonly postalCode: string | null;
  /** As given at creation; '' when not given. */
  readonly destinationCountry: string;
  /** Virtual creation time, epoch ms. */
  readonly createdAtMs: number;
}

/** A tracker as shown by the control API. */
export interface TrackerView {
  appName: string;
  tracking_number: string;
  tracking_provider: string;
  order_id: string;
  postal_code: string | null;
  destination_country: string;
  created_at: string;
  status: TrackingStatus;
}

export class AccountConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountConflictError';
  }
}

export interface EmulatorStateOptions {
  accounts: readonly AccountInput[];
  /** Share of trackers that follow one of the lifecycle's other paths (0 by default: the plain schedule). */
  statusVariety?: number;
  clock: VirtualClock;
  faults: FaultController;
  callLogLimit?: number;
}

const sep = '\u0000';

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function removeFrom<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (!list) return;
  const i = list.indexOf(value);
  if (i >= 0) list.splice(i, 1);
  if (list.length === 0) map.delete(key);
}

export class EmulatorState {
  readonly clock: VirtualClock;
  readonly faults: FaultController;
  readonly calls: CallLog;
  readonly script = new ScriptQueue();

  private readonly initialAccounts: readonly Account[];
  private byApiKey = new Map<string, Account>();
  private byAppName = new Map<string, Account>();
  private webhookSince = new Map<string, number>();
  private trackers = new Map<string, Tracker>();
  private byNumber = new Map<string, Tracker[]>();
  private byOrder = new Map<string, Tracker[]>();
  private seq = 0;
  private readonly statusVariety: number;

  constructor(options: EmulatorStateOptions) {
    this.clock = options.clock;
    this.statusVariety = options.statusVariety ?? 0;
    this.faults = options.faults;
    this.calls = new CallLog(options.callLogLimit);
    const accounts = options.accounts.map((a) => accountSchema.parse(a));
    this.initialAccounts = accounts.length > 0 ? accounts : [demoAccount];
    this.restoreAccounts();
  }

  // ---- accounts ----

  accountByApiKey(apiKey: string): Account | undefined {
    return this.byApiKey.get(apiKey);
  }

  accountByAppName(appName: string): Account | undefined {
    return this.byAppName.get(appName);
  }

  /** Every account, without api keys. */
  listAccounts(): AccountView[] {
    return [...this.byAppName.values()].map(accountView);
  }

  /** Every api key currently known (used to keep keys out of the call log). */
  apiKeys(): IterableIterator<string> {
    return this.byApiKey.keys();
  }

  /** Adds an account (validated; throws ZodError or AccountConflictError). */
  addAccount(input: unknown): AccountView {
    const account = accountSchema.parse(input);
    this.insertAccount(account);
    return accountView(account);
  }

  /** Changes balance, plan and/or https of an account; undefined when no account has this app name. */
  patchAccount(appName: string, input: unknown): AccountView | undefined {
    const patch = accountPatchSchema.parse(input);
    const account = this.byAppName.get(appName);
    if (!account) return undefined;
    if (patch.balance !== undefined) account.balance = patch.balance;
    if (patch.plan !== undefined) account.plan = patch.plan;
    if (patch.https !== undefined) account.https = patch.https;
    if (patch.webhookUrl !== undefined) this.setWebhook(account, patch.webhookUrl);
    return accountView(account);
  }

  private insertAccount(account: Account): void {
    if (this.byApiKey.has(account.apiKey))
      throw new AccountConflictError('An account with this api key exists');
    if (this.byAppName.has(account.appName)) {
      throw new AccountConflictError(`An account with app name ${account.appName} exists`);
    }
    this.byApiKey.set(account.apiKey, account);
    this.byAppName.set(account.appName, account);
    if (account.webhookUrl) this.webhookSince.set(account.appName, this.clock.nowMs());
  }

  /**
   * Events of the account's trackers up to this virtual time happened before its webhook was set: they are
   * never pushed (as at the real service, a webhook receives what happens after it is registered).
   */
  webhookSinceMs(appName: string): number | undefined {
    return this.webhookSince.get(appName);
  }

  private setWebhook(account: Account, url: string | null): void {
    if (url === account.webhookUrl) return;
    account.webhookUrl = url;
    if (url) this.webhookSince.set(account.appName, this.clock.nowMs());
    else this.webhookSince.delete(account.appName);
  }

  /** Accounts with a webhook. */
  accountsWithWebhook(): Account[] {
    return [...this.byAppName.values()].filter((a) => a.webhookUrl !== null);
  }

  private restoreAccounts(): void {
    this.byApiKey = new Map();
    this.byAppName = new Map();
    this.webhookSince = new Map();
    for (const a of this.initialAccounts) this.insertAccount({ ...a });
  }

  // ---- trackers ----

  findTracker(appName: string, trackingNumber: string, provider: string): Tracker | undefined {
    return this.trackers.get(appName + sep + trackingNumber + sep + provider);
  }

  /** The newest tracker of this account with this number (any provider). */
  findNewestByNumber(appName: string, trackingNumber: string): Tracker | undefined {
    const list = this.byNumber.get(appName + sep + trackingNumber);
    return list?.[list.length - 1];
  }

  /** Trackers of this account on this order, oldest first. */
  trackersByOrder(appName: string, orderId: string): Tracker[] {
    return this.byOrder.get(appName + sep + orderId)?.slice() ?? [];
  }

  /** Trackers (of one account, or all), oldest first. */
  listTrackers(appName?: string): Tracker[] {
    const all = [...this.trackers.values()];
    return appName === undefined ? all : all.filter((t) => t.appName === appName);
  }

  get trackerCount(): number {
    return this.trackers.size;
  }

  /** Adds a tracker created now (no balance handling: see the create operation). */
  addTracker(input: {
    appName: string;
    trackingNumber: string;
    provider: string;
    orderId: string;
    postalCode: string | null;
    destinationCountry: string;
  }): Tracker {
    const carrier = findCarrier(input.provider);
    if (!carrier) throw new Error(`unknown provider ${input.provider}`);
    const tracker: Tracker = { ...input, carrier, seq: ++this.seq, createdAtMs: this.clock.nowMs() };
    this.trackers.set(tracker.appName + sep + tracker.trackingNumber + sep + tracker.provider, tracker);
    pushTo(this.byNumber, tracker.appName + sep + tracker.trackingNumber, tracker);
    pushTo(this.byOrder, tracker.appName + sep + tracker.orderId, tracker);
    return tracker;
  }

  removeTracker(tracker: Tracker): void {
    this.trackers.delete(tracker.appName + sep + tracker.trackingNumber + sep + tracker.provider);
    removeFrom(this.byNumber, tracker.appName + sep + tracker.trackingNumber, tracker);
    removeFrom(this.byOrder, tracker.appName + sep + tracker.orderId, tracker);
  }

  /** The tracker's shipment as of the current virtual time. */
  snapshot(tracker: Tracker): ShipmentSnapshot {
    return this.snapshotAt(tracker, this.clock.nowMs());
  }

  /** The tracker's shipment as it was at this virtual time. */
  snapshotAt(tracker: Tracker, atMs: number): ShipmentSnapshot {
    return shipmentSnapshot(tracker, atMs, this.statusVariety);
  }

  trackerView(tracker: Tracker): TrackerView {
    return {
      appName: tracker.appName,
      tracking_number: tracker.trackingNumber,
      tracking_provider: tracker.provider,
      order_id: tracker.orderId,
      postal_code: tracker.postalCode,
      destination_country: tracker.destinationCountry,
      created_at: new Date(tracker.createdAtMs).toISOString(),
      status: this.snapshot(tracker).status,
    };
  }

  // ---- whole state ----

  /** Clears trackers, call log, script; restores the start accounts and fault plan. The clock keeps running. */
  reset(): void {
    this.trackers.clear();
    this.byNumber.clear();
    this.byOrder.clear();
    this.calls.clear();
    this.script.clear();
    this.faults.reset();
    this.restoreAccounts();
  }
}

function accountView(a: Account): AccountView {
  return { appName: a.appName, plan: a.plan, balance: a.balance, https: a.https, webhookUrl: a.webhookUrl };
}
