import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../src/db/paths.js';

/**
 * The app's Flow extensions as the platform reads them (extensions/<handle>/shopify.extension.toml), parsed
 * with a real TOML parser and checked against the platform's rules for them (Shopify CLI's
 * flow_trigger specification): a trigger's fields are reference fields (no key, sent as `<object>_id`) or
 * custom fields of the types a trigger takes, keyed with letters and spaces only.
 */

/** The reference field types a trigger takes, and the payload key each is sent under. */
export const referenceFields: Readonly<Record<string, string>> = {
  customer_reference: 'customer_id',
  order_reference: 'order_id',
  product_reference: 'product_id',
  company_reference: 'company_id',
  company_contact_reference: 'company_contact_id',
};

/** The custom field types a trigger takes. */
export const customFieldTypes = [
  'boolean',
  'email',
  'single_line_text_field',
  'url',
  'number_decimal',
] as const;

const referenceField = z
  .object({
    type: z.enum(Object.keys(referenceFields) as [string, ...string[]]),
    description: z.string().optional(),
  })
  .strict();
const customField = z
  .object({
    type: z.enum(customFieldTypes),
    key: z.string().regex(/^[a-zA-Z\s]+$/, 'a key has letters and spaces only'),
    description: z.string().optional(),
  })
  .strict();

const triggerToml = z
  .object({
    extensions: z
      .array(
        z
          .object({
            name: z.string().min(1),
            type: z.literal('flow_trigger'),
            handle: z
              .string()
              .max(30)
              .regex(/^[a-z0-9-]+$/, 'a handle has letters, digits and hyphens'),
            description: z.string().optional(),
          })
          .strict(),
      )
      .length(1),
    settings: z.object({ fields: z.array(z.union([referenceField, customField])).min(1) }).strict(),
  })
  .strict();

export type TriggerToml = z.output<typeof triggerToml>;
export type TriggerField = TriggerToml['settings']['fields'][number];

const lifecycleToml = z
  .object({
    extensions: z
      .array(
        z
          .object({
            name: z.string().min(1),
            type: z.literal('flow_trigger_lifecycle_callback'),
            handle: z
              .string()
              .max(30)
              .regex(/^[a-z0-9-]+$/),
            url: z.url({ protocol: /^https$/ }),
          })
          .strict(),
      )
      .length(1),
  })
  .strict();

export function extensionPath(folder: string): string {
  return path.join(PROJECT_ROOT, 'extensions', folder, 'shopify.extension.toml');
}

/** A trigger extension's TOML, checked against the platform's rules; throws on the first break. */
export function parseTriggerToml(text: string): TriggerToml {
  const parsed = triggerToml.parse(parse(text));
  const keys = parsed.settings.fields.map(payloadKeyOf);
  const repeated = keys.filter((key, i) => keys.indexOf(key) !== i);
  if (repeated.length > 0) throw new Error(`fields given twice: ${repeated.join(', ')}`);
  return parsed;
}

export function readTriggerToml(folder: string): TriggerToml {
  return parseTriggerToml(readFileSync(extensionPath(folder), 'utf8'));
}

export function readLifecycleToml(folder: string): z.output<typeof lifecycleToml> {
  return lifecycleToml.parse(parse(readFileSync(extensionPath(folder), 'utf8')));
}

/** The key a field's value goes under in a trigger's payload. */
export function payloadKeyOf(field: TriggerField): string {
  return 'key' in field ? field.key : referenceFields[field.type]!;
}

/** What is wrong with a payload for these fields: every field present, nothing else, each of its type. */
export function payloadProblems(fields: readonly TriggerField[], payload: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const byKey = new Map(fields.map((f) => [payloadKeyOf(f), f]));
  for (const key of Object.keys(payload)) if (!byKey.has(key)) problems.push(`unknown field '${key}'`);
  for (const [key, field] of byKey) {
    if (!(key in payload)) {
      problems.push(`missing field '${key}'`);
      continue;
    }
    const value = payload[key];
    if (!valueFits(field.type, value))
      problems.push(`'${key}' is not a ${field.type}: ${JSON.stringify(value)}`);
  }
  if (Buffer.byteLength(JSON.stringify(payload)) >= 50_000) problems.push('payload of 50000 bytes or more');
  return problems;
}

function valueFits(type: string, value: unknown): boolean {
  if (type in referenceFields) return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
  switch (type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'number_decimal':
      return typeof value === 'number' && Number.isFinite(value);
    case 'url':
      return typeof value === 'string' && URL.canParse(value) && /^https:\/\//.test(value);
    case 'email':
      return typeof value === 'string' && /^[^\s@]+@[^\s@]+$/.test(value);
    case 'single_line_text_field':
      return typeof value === 'string' && !/[\r\n]/.test(value);
    default:
      return false;
  }
}
