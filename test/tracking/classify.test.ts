import { describe, expect, it } from 'vitest';
import { createMessageIsFailure, reasonFromMessage } from '../../src/tracking/classify.js';

describe('a create answered 200 whose status_msg is a failure', () => {
  it.each([
    // The service's published status reference: these come back in a 200 create's status_msg.
    ['carrier_unsupported', 'provider_not_found'], // permanent for the tracker: map the carrier
    ['insufficient_balance', 'balance_exhausted'], // the shop is paused until the balance is topped up
    ['ssl_error', 'ssl_error'],
  ])('%s → %s', (message, reason) => {
    expect(createMessageIsFailure(message)).toBe(true);
    expect(reasonFromMessage(message, 200)).toBe(reason);
  });

  it('a success message is not a failure', () => {
    for (const message of ['Tracker created', 'ok', 'Shipment added', null]) {
      expect(createMessageIsFailure(message)).toBe(false);
    }
  });
});
