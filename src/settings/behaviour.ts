import * as z from 'zod/mini';

/**
 * The Behaviour settings of a shop (what the app does with fulfilments, the store's timeline and the
 * tracking links, and how often it reads a shipment while pushes arrive): the one schema the API's
 * `PUT /api/settings` parses with and the Settings page checks its Behaviour card with before saving.
 * Built on zod's tree-shakable build (`zod/mini`) so the page bundle carries a few kB of it; the API reads
 * it like any schema (src/ui/api/validation.ts).
 */

/** While status pushes arrive, each shipment is still read at least every this many hours. */
export const pushSafetyPollHoursRange = { min: 1, max: 168 } as const;

const pushSafetyMessage = `pushSafetyPollHours must be a whole number of hours from ${pushSafetyPollHoursRange.min} to ${pushSafetyPollHoursRange.max}`;
const onOff = (name: string) => z.boolean({ error: `${name} must be true or false` });

/** Any of the settings; the others stay as they are. One issue per refused field. */
export const behaviourSchema = z.strictObject({
  createOnFulfillment: z.optional(onOff('createOnFulfillment')),
  deleteOnCancel: z.optional(onOff('deleteOnCancel')),
  orderIdSource: z.optional(z.enum(['id', 'name'], { error: 'orderIdSource must be "id" or "name"' })),
  postFulfillmentEvents: z.optional(onOff('postFulfillmentEvents')),
  showOrderDelivered: z.optional(onOff('showOrderDelivered')),
  linkToTrackingPage: z.optional(onOff('linkToTrackingPage')),
  pushSafetyPollHours: z.optional(
    z.number({ error: pushSafetyMessage }).check(
      z.refine((n) => Number.isSafeInteger(n), { error: pushSafetyMessage, abort: true }),
      z.gte(pushSafetyPollHoursRange.min, { error: pushSafetyMessage, abort: true }),
      z.lte(pushSafetyPollHoursRange.max, { error: pushSafetyMessage }),
    ),
  ),
});
export type BehaviourInput = z.output<typeof behaviourSchema>;
/** Every Behaviour setting, as the shop holds them. */
export type BehaviourSettings = Required<BehaviourInput>;

/** The page's words for a refused field (the API's name the field for a developer). */
export const behaviourFieldMessages: Partial<Record<keyof BehaviourSettings, string>> = {
  pushSafetyPollHours: `Enter a whole number of hours from ${pushSafetyPollHoursRange.min} to ${pushSafetyPollHoursRange.max}.`,
};
