import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  actionPlaces,
  endedRows,
  finalStatuses,
  groupByDetail,
  parcelGroups,
  parcelGroupStatuses,
  parcelOf,
  platformStatusOf,
  problemKinds,
  progressSteps,
  type StatusRow,
  statusRows,
  troubles,
} from '../../src/shipments/parcel-model.js';
import * as status from '../../src/shipments/status.js';
import { defaultPollPolicy, nextPollAt } from '../../src/shipments/status.js';

/**
 * The one model of a parcel: one row per status code (and service tracker state), each row carrying every
 * attribute any view reads; the rules that used to be kept beside it (status.ts's own normaliser, tracker
 * state set, platform maps and pre-transit list) are gone.
 */

const attributes: Array<keyof StatusRow> = [
  'group',
  'label',
  'tone',
  'final',
  'trouble',
  'cadence',
  'trackerState',
  'overridesMoving',
  'moving',
  'platform',
  'problem',
  'shopperStep',
  'shopperTrouble',
  'estimates',
  'advice',
  'action',
];

const allRows = [...Object.entries(statusRows), ...Object.entries(endedRows)];

describe('the parcel model', () => {
  it.each(allRows)('%s carries every attribute, each a value the views know', (code, row) => {
    expect(Object.keys(row).sort()).toEqual([...attributes].sort());
    expect(parcelGroups).toContain(row.group);
    expect(row.label).not.toBe('');
    expect(row.label).not.toContain('_');
    expect(row.label).not.toBe(code);
    if (row.problem !== null) expect(problemKinds).toContain(row.problem);
    if (row.shopperStep !== 'where_it_was') expect(progressSteps).toContain(row.shopperStep);
    if (row.shopperTrouble !== null) expect(troubles).toContain(row.shopperTrouble);
    if (row.action) {
      expect(Object.keys(actionPlaces)).toContain(row.action.place);
      expect(row.advice).not.toBeNull();
    }
    // A final parcel is never read again; a parcel read again is never final.
    expect(row.cadence === 'stopped').toBe(row.final);
  });

  it('the service tracker states are rows of their own: they write nothing to the store and name what to do', () => {
    const states = Object.entries(statusRows).filter(([, r]) => r.trackerState);
    expect(states.map(([c]) => c).sort()).toEqual(
      [
        'carrier_unsupported',
        'connection_issue',
        'deleted',
        'expired',
        'invalid_carrier',
        'invalid_tracking',
        'pending_trackship',
      ].sort(),
    );
    for (const [code, row] of states) {
      expect(row.platform, code).toBeNull();
      expect(row.advice, code).not.toBeNull();
      expect(platformStatusOf(code, 'delivered'), code).toBeNull();
    }
  });

  it('a parcel the service cannot follow (invalid_carrier) is one thing: trouble, final, no estimate, map the carrier in Settings', () => {
    const p = parcelOf('Invalid Carrier', null);
    expect(p).toMatchObject({
      code: 'invalid_carrier',
      group: 'not_followed',
      label: 'Not followed: wrong carrier',
      tone: 'exception',
      final: true,
      trouble: true,
      estimates: false,
      problem: 'tracking_problem',
      shopperTrouble: 'tracking_unavailable',
      action: { place: 'settings_carriers', byApp: false },
    });
    expect(p.advice).toMatch(/Settings → Carrier mapping/);
    expect(actionPlaces[p.action!.place]).toEqual({ page: 'settings', section: 'carriers' });
  });

  it('label_created is not moving yet: read at the pre-transit cadence, as the table says', () => {
    expect(parcelOf('label_created').cadence).toBe('pre_transit');
    expect(parcelOf('pre_transit', 'label_created').cadence).toBe('pre_transit');
    const now = new Date('2026-11-20T12:00:00Z');
    const created = new Date('2026-11-20T10:00:00Z');
    const next = nextPollAt(
      { status: 'label_created', statusDetail: null, lastEventAt: null },
      created,
      now,
      { ...defaultPollPolicy, jitter: 0 },
    );
    expect(next!.getTime() - now.getTime()).toBe(defaultPollPolicy.preTransitMs);
    const moving = nextPollAt({ status: 'in_transit', statusDetail: null, lastEventAt: null }, created, now, {
      ...defaultPollPolicy,
      jitter: 0,
    });
    expect(moving!.getTime() - now.getTime()).toBe(defaultPollPolicy.movingMs);
  });

  it('a line cancelled in the store shows its cancellation and no estimate, whatever the tracker last said', () => {
    const p = parcelOf('pre_transit', 'label_created', 'fulfillment_cancelled');
    expect(p).toMatchObject({ group: 'ended', label: 'Fulfilment cancelled', estimates: false, final: true });
    expect(p.shopperTrouble).toBe('cancelled');
  });

  it('the lists are generated from the rows', () => {
    for (const [code, row] of Object.entries(statusRows)) {
      if (row.group !== 'in_transit') {
        expect(parcelGroupStatuses[row.group as Exclude<typeof row.group, 'in_transit'>]).toContain(code);
      }
      expect(finalStatuses.includes(code)).toBe(row.final);
    }
    for (const [detail, group] of Object.entries(groupByDetail)) {
      expect(parcelOf('in_transit', detail).group).toBe(group);
    }
  });

  it('the twins are gone: status.ts keeps no normaliser, tracker-state set, platform map or pre-transit list of its own', () => {
    expect(Object.keys(status)).not.toContain('normaliseStatus');
    expect(Object.keys(status)).not.toContain('trackerStates');
    const source = readFileSync(new URL('../../src/shipments/status.ts', import.meta.url), 'utf8');
    for (const twin of [
      "s === 'pending'",
      "'label_printed'",
      "'pending_trackship'",
      "'invalid_carrier'",
      'LABEL_PRINTED',
      'normaliseStatus(',
    ]) {
      expect(source, twin).not.toContain(twin);
    }
    const view = readFileSync(new URL('../../src/ui/api/shipment-status.ts', import.meta.url), 'utf8');
    expect(view).not.toMatch(/new Set\(\[/);
    const vocabulary = readFileSync(new URL('../../src/ui/vocabulary.ts', import.meta.url), 'utf8');
    expect(vocabulary).not.toMatch(/statusLabels|statusActions/);
  });

  it('the module is import-free (the page bundles it)', () => {
    const source = readFileSync(new URL('../../src/shipments/parcel-model.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^import /m);
  });
});
