/**
 * The stores' side of the bench: one local fake of the Admin GraphQL API (tools/dev/fake-store-admin.ts) in the
 * bench process, which app processes reach when started with its preload and FAKE_STORE_URL (app-process.ts
 * `fakeStoreUrl`). The worker confirms every fulfilment it has not seen with its store before applying it
 * (one `nodes(ids:)` query per shop and pass, src/webhooks/admit-deliveries.ts); the fake holds every
 * fulfilment it is asked about, and records each request, from which a drain counts the store calls it cost.
 */
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../tools/dev/fake-store-admin.js';
import type { Cleanup } from './cleanup.js';

/** Starts the fake store (closed by the cleanup at the latest). */
export async function startBenchStore(cleanup: Cleanup): Promise<FakeAdminGraphql> {
  const store = await startFakeAdminGraphql();
  cleanup.add('close the fake store', () => store.close());
  return store;
}

export interface StoreCalls {
  /** `fulfillmentNodes` requests (one per shop and worker pass that met first-seen fulfilments). */
  calls: number;
  /** Fulfilment ids asked about, summed over the calls (an id asked twice counts twice). */
  idsAsked: number;
  /** Distinct (shop, fulfilment) asked about. */
  distinctAsked: number;
  /** Requests of any other operation meanwhile. */
  otherCalls: number;
}

/** A mark in the fake's request log: `since(mark)` counts what came after it, for `shops` only. */
export function storeMark(store: FakeAdminGraphql): number {
  return store.requests.length;
}

export function storeCallsSince(
  store: FakeAdminGraphql,
  mark: number,
  shops: ReadonlySet<string>,
): StoreCalls {
  let calls = 0;
  let idsAsked = 0;
  let otherCalls = 0;
  const distinct = new Set<string>();
  for (const request of store.requests.slice(mark)) {
    if (!shops.has(request.shop)) continue;
    if (request.operation !== 'fulfillmentNodes') {
      otherCalls++;
      continue;
    }
    calls++;
    const ids = Array.isArray(request.variables.ids) ? request.variables.ids.map(String) : [];
    idsAsked += ids.length;
    for (const id of ids) distinct.add(`${request.shop} ${id}`);
  }
  return { calls, idsAsked, distinctAsked: distinct.size, otherCalls };
}
