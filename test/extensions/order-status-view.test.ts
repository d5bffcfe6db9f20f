import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { proxyMessages } from '../../src/proxy/messages.js';
import { weekdayDate } from '../../src/proxy/render.js';
import {
  progressSteps as appSteps,
  progressOf,
  troubles as appTroubles,
} from '../../src/shipments/shopper-progress.js';
import {
  type AnswerParcel,
  estimateDay,
  parcelsRequestUrl,
  parcelView,
  parseParcelsAnswer,
  progressSteps,
  type Translate,
  troubles,
} from '../../extensions/order-status-tracking/src/view.js';
import type { OrderStatusParcel } from '../../src/proxy/order-status.js';

/**
 * The extension is built on its own (it may not import the app), so it spells the app's answer again;
 * the type checker holds the two spellings to each other, both ways.
 */
export type AnswerMatchesApp = [OrderStatusParcel] extends [AnswerParcel]
  ? [AnswerParcel] extends [OrderStatusParcel]
    ? true
    : never
  : never;
export const answerMatchesApp: AnswerMatchesApp = true;

/**
 * The order status extension's view logic (extensions/order-status-tracking/src/view.ts), a pure module:
 * the app's answer → the step's label and "Step n of 5", the trouble, the estimate's wording, the latest
 * event's line and the link, in the buyer's language, with the extension's own locale files.
 */

const localesDir = path.join(PROJECT_ROOT, 'extensions', 'order-status-tracking', 'locales');
type Messages = { [key: string]: string | Messages };
const messagesOf = (file: string): Messages =>
  JSON.parse(readFileSync(path.join(localesDir, `${file}.json`), 'utf8')) as Messages;

/**
 * What the platform's `i18n.translate` does with a locale file, for these words: a dotted key into the
 * nested JSON, `{{name}}` replaced. A missing key or replacement fails the test instead of showing a key.
 */
function translatorOf(file: string): Translate {
  const messages = messagesOf(file);
  return (key, replacements = {}) => {
    let value: string | Messages | undefined = messages;
    for (const part of key.split('.')) value = typeof value === 'object' ? value[part] : undefined;
    if (typeof value !== 'string') throw new Error(`${file}: no text for ${key}`);
    return value.replace(/\{\{\s*(\w+)\s*\}\}/g, (_m, name: string) => {
      if (!(name in replacements)) throw new Error(`${file}: ${key} needs {{${name}}}`);
      return String(replacements[name]);
    });
  };
}

const en = { locale: 'en', translate: translatorOf('en.default'), timeZone: 'UTC' };
const de = { locale: 'de', translate: translatorOf('de'), timeZone: 'UTC' };

function parcel(overrides: Partial<AnswerParcel> = {}): AnswerParcel {
  return {
    trackingNumber: '1Z999AA10123456784',
    carrier: 'UPS',
    step: 'in_transit',
    stepIndex: 2,
    trouble: null,
    estimate: null,
    deliveredAt: null,
    latestEvent: null,
    pageUrl: 'https://shop.example/apps/track?view=abc.def&locale=en',
    ...overrides,
  };
}

const at = (step: AnswerParcel['step'], trouble: AnswerParcel['trouble'] = null) =>
  parcel({ step, stepIndex: progressSteps.indexOf(step), trouble });

describe('the steps', () => {
  it('are the app’s steps and troubles, in its order', () => {
    expect([...progressSteps]).toEqual([...appSteps]);
    expect([...troubles]).toEqual([...appTroubles]);
  });

  it('each step: its label key, "Step n of 5", a badge without alarm, in English and German', () => {
    const english = ['Ordered', 'Shipped', 'In transit', 'Out for delivery', 'Delivered'];
    const german = ['Bestellt', 'Versandt', 'Unterwegs', 'In Zustellung', 'Zugestellt'];
    progressSteps.forEach((step, i) => {
      const view = parcelView(at(step), en);
      expect(view.stepKey).toBe(`step.${step}`);
      expect(view.stepLabel).toBe(english[i]);
      expect(view.stepNumber).toBe(i + 1);
      expect(view.stepCount).toBe(5);
      expect(view.stepOf).toBe(`Step ${i + 1} of 5`);
      expect(view.progressLabel).toBe(`Shipping progress: Step ${i + 1} of 5`);
      expect(view.tone).toBe('auto');
      expect(view.trouble).toBeNull();
      const deView = parcelView(at(step), de);
      expect(deView.stepLabel).toBe(german[i]);
      expect(deView.stepOf).toBe(`Schritt ${i + 1} von 5`);
    });
    expect(parcelView(at('delivered'), en).icon).toBe('delivered');
    expect(parcelView(at('in_transit'), en).icon).toBe('truck');
  });

  it('follows the app’s rule from a status to a step (src/shipments/shopper-progress.ts)', () => {
    const cases: Array<[string | null, string | null, boolean, string, string | null]> = [
      [null, null, false, 'Step 2 of 5', null],
      ['in_transit', null, true, 'Step 3 of 5', null],
      ['out_for_delivery', null, true, 'Step 4 of 5', null],
      ['delivered', null, true, 'Step 5 of 5', null],
      ['failure', null, true, 'Step 4 of 5', 'The carrier could not deliver'],
      ['exception', 'return_to_sender', true, 'Step 3 of 5', 'On its way back to the store'],
    ];
    for (const [status, detail, moved, stepOf, title] of cases) {
      const progress = progressOf(status, detail, moved);
      const view = parcelView(
        parcel({ step: progress.step, stepIndex: progress.index, trouble: progress.trouble }),
        en,
      );
      expect([status, view.stepOf, view.trouble?.title ?? null]).toEqual([status, stepOf, title]);
    }
  });
});

describe('the troubles', () => {
  const english: Record<(typeof troubles)[number], string> = {
    exception: 'The carrier reported a problem',
    failed_attempt: 'The carrier could not deliver',
    on_hold: 'Held by the carrier',
    returning: 'On its way back to the store',
    pickup: 'Ready for pickup',
    tracking_unavailable: 'Tracking is not available',
    cancelled: 'This shipment was cancelled',
  };

  it('each one: its title and what to do, critical but for a parcel waiting at a pickup point', () => {
    for (const trouble of troubles) {
      const view = parcelView(at('in_transit', trouble), en);
      expect(view.trouble?.key).toBe(trouble);
      expect(view.trouble?.title).toBe(english[trouble]);
      expect(view.trouble?.advice.length).toBeGreaterThan(20);
      expect(view.tone).toBe(trouble === 'pickup' ? 'auto' : 'critical');
      expect(view.icon).toBe(
        trouble === 'pickup' ? 'store' : trouble === 'cancelled' ? 'x-circle' : 'alert-triangle',
      );
      // The step stays said: the trouble is on it.
      expect(view.stepOf).toBe('Step 3 of 5');
    }
  });

  it('in German', () => {
    const view = parcelView(at('out_for_delivery', 'failed_attempt'), de);
    expect(view.trouble?.title).toBe('Der Versanddienst konnte nicht zustellen');
    expect(view.stepLabel).toBe('In Zustellung');
  });
});

describe('the estimate’s wording', () => {
  const service = parcel({ estimate: { date: '2026-11-27', predicted: false } });
  const predicted = parcel({ estimate: { date: '2026-11-27', predicted: true } });
  const delivered = parcel({
    step: 'delivered',
    stepIndex: 4,
    deliveredAt: '2026-11-27T15:04:00.000Z',
  });

  it('in English: Arriving …, Expected by … (predicted), Delivered on …', () => {
    expect(parcelView(service, en).estimate).toBe('Arriving Friday, 27 November');
    expect(parcelView(predicted, en).estimate).toBe('Expected by Friday, 27 November');
    expect(parcelView(delivered, en).estimate).toBe('Delivered on Friday, 27 November');
  });

  it('in German', () => {
    expect(parcelView(service, de).estimate).toBe('Zustellung am Freitag, 27. November');
    expect(parcelView(predicted, de).estimate).toBe('Voraussichtlich bis Freitag, 27. November');
    expect(parcelView(delivered, de).estimate).toBe('Zugestellt am Freitag, 27. November');
  });

  it('the delivery day is the buyer’s: late evening in UTC is the next day in Berlin', () => {
    const late = parcel({ step: 'delivered', stepIndex: 4, deliveredAt: '2026-11-27T23:30:00Z' });
    expect(parcelView(late, { ...en, timeZone: 'UTC' }).estimate).toBe('Delivered on Friday, 27 November');
    expect(parcelView(late, { ...en, timeZone: 'Europe/Berlin' }).estimate).toBe(
      'Delivered on Saturday, 28 November',
    );
  });

  it('an estimate is a calendar day, whatever the zone; a service time after the date changes nothing', () => {
    const withTime = parcel({ estimate: { date: '2026-11-27 00:00:00', predicted: false } });
    expect(parcelView(withTime, { ...en, timeZone: 'America/Los_Angeles' }).estimate).toBe(
      'Arriving Friday, 27 November',
    );
  });

  it('nothing without a date: no estimate, or delivered with no time; a text that is no date is shown as given', () => {
    expect(parcelView(parcel(), en).estimate).toBeNull();
    expect(parcelView(parcel({ step: 'delivered', stepIndex: 4 }), en).estimate).toBeNull();
    expect(parcelView(parcel({ estimate: { date: 'next week', predicted: false } }), en).estimate).toBe(
      'Arriving next week',
    );
  });

  it('the day is written as the shoppers’ page writes it, and the estimate with its words', () => {
    for (const locale of ['en', 'de', 'fr', 'es', 'nl']) {
      expect(estimateDay('2026-11-27', locale)).toBe(weekdayDate('2026-11-27', locale));
      const file = locale === 'en' ? 'en.default' : locale;
      const words = messagesOf(file).estimate as Messages;
      const page = proxyMessages(locale);
      expect(words.arriving).toBe(page.arriving.replace('{day}', '{{day}}'));
      expect(words.expected_by).toBe(page.expectedBy.replace('{day}', '{{day}}'));
    }
  });
});

describe('the latest event and the link', () => {
  const event = { at: '2026-11-26T14:05:00Z', message: 'Departed facility', location: 'Louisville, KY, US' };

  it('the event’s message, place and time on one line', () => {
    expect(parcelView(parcel({ latestEvent: event }), de).latestEvent).toBe(
      'Letzte Meldung: Departed facility · Louisville, KY, US · 26.11.2026, 14:05',
    );
    expect(parcelView(parcel({ latestEvent: { ...event, location: null, at: null } }), en).latestEvent).toBe(
      'Latest update: Departed facility',
    );
    expect(parcelView(parcel({ latestEvent: { ...event, message: '  ' } }), en).latestEvent).toBeNull();
    expect(parcelView(parcel(), en).latestEvent).toBeNull();
  });

  it('links to the parcel’s page, in the buyer’s language', () => {
    const view = parcelView(parcel(), en);
    expect(view.link).toEqual({
      href: 'https://shop.example/apps/track?view=abc.def&locale=en',
      label: 'See full tracking',
    });
    expect(parcelView(parcel(), de).link.label).toBe('Vollständige Sendungsverfolgung ansehen');
  });
});

describe('the answer and the request', () => {
  it('takes a well-formed answer as it is', () => {
    const answer = {
      parcels: [parcel({ latestEvent: { at: null, message: 'Label created', location: null } })],
    };
    expect(parseParcelsAnswer(JSON.parse(JSON.stringify(answer)))).toEqual(answer);
    expect(parseParcelsAnswer({ parcels: [] })).toEqual({ parcels: [] });
  });

  it('refuses anything else: nothing is shown rather than something wrong', () => {
    const bad: unknown[] = [
      null,
      [],
      { parcels: 'x' },
      { parcels: [{ ...parcel(), step: 'teleported' }] },
      { parcels: [{ ...parcel(), stepIndex: 3 }] },
      { parcels: [{ ...parcel(), trouble: 'lost' }] },
      { parcels: [{ ...parcel(), estimate: { date: 5, predicted: false } }] },
      { parcels: [{ ...parcel(), latestEvent: { at: null, message: null, location: null } }] },
      { parcels: [{ ...parcel(), pageUrl: 'http://shop.example/apps/track' }] },
      { parcels: [{ ...parcel(), pageUrl: 'javascript:alert(1)//' }] },
      { parcels: [{ ...parcel(), trackingNumber: undefined }] },
    ];
    for (const value of bad) expect(parseParcelsAnswer(value)).toBeNull();
  });

  it('asks the app for the target’s fulfilment, in the buyer’s language', () => {
    expect(
      parcelsRequestUrl('https://app.example/', 'gid://shopify/Fulfillment/5521012345678', 'pt-BR'),
    ).toBe(
      'https://app.example/customer-account/parcels?fulfillment=gid%3A%2F%2Fshopify%2FFulfillment%2F5521012345678&locale=pt-BR',
    );
    expect(parcelsRequestUrl('https://app.example', '42', 'de')).toBe(
      'https://app.example/customer-account/parcels?fulfillment=gid%3A%2F%2Fshopify%2FFulfillment%2F42&locale=de',
    );
  });
});

describe('the locale files', () => {
  const files = readdirSync(localesDir)
    .map((f) => f.replace(/\.json$/, ''))
    .sort();
  const keysOf = (messages: Messages, prefix = ''): string[] =>
    Object.entries(messages).flatMap(([key, value]) =>
      typeof value === 'string' ? [`${prefix}${key}`] : keysOf(value, `${prefix}${key}.`),
    );
  const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();
  const textOf = (messages: Messages, key: string) =>
    key.split('.').reduce<string | Messages>((v, part) => (v as Messages)[part]!, messages) as string;

  it('English by default and the ten other languages of the shoppers’ side', () => {
    expect(files).toEqual(['ar', 'de', 'en.default', 'es', 'fr', 'it', 'ja', 'nl', 'pl', 'pt-BR', 'sv']);
  });

  it('every language has every text, with the same placeholders, and the view finds all it asks', () => {
    const english = messagesOf('en.default');
    for (const file of files) {
      const messages = messagesOf(file);
      expect(keysOf(messages).sort(), file).toEqual(keysOf(english).sort());
      for (const key of keysOf(english))
        expect(placeholders(textOf(messages, key)), `${file} ${key}`).toEqual(
          placeholders(textOf(english, key)),
        );
      const context = {
        locale: file.replace('.default', ''),
        translate: translatorOf(file),
        timeZone: 'UTC',
      };
      for (const step of progressSteps)
        for (const trouble of [null, ...troubles]) {
          const view = parcelView(
            {
              ...at(step, trouble),
              estimate: { date: '2026-11-27', predicted: trouble === null },
              deliveredAt: '2026-11-27T10:00:00Z',
              latestEvent: { at: '2026-11-26T14:05:00Z', message: 'Scan', location: null },
            },
            context,
          );
          expect(view.estimate, `${file} ${step}`).toBeTruthy();
          expect(view.estimate).not.toMatch(/\{\{|2026-11-27/);
        }
    }
  });
});
