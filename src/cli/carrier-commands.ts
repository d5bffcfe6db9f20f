import { parseArgs } from 'node:util';
import { z } from 'zod';
import { storableString } from '../db/storable-text.js';
import { mapCarrier, mapCarrierInput } from '../trackers/map-carrier.js';
import { normaliseCarrierName } from '../carriers/match.js';
import { refreshCarriers } from '../trackers/refresh-carriers.js';
import {
  CliError,
  defineCommand,
  exitCodes,
  jsonFlag,
  requireFlags,
  shopDomainFlag,
  usageErrors,
  validateFlags,
} from './command.js';
import { firstLine } from './context.js';
import { formatJson, formatTable } from './output.js';

export const carriersRefresh = defineCommand({
  name: 'carriers:refresh',
  summary: "fetch the service's carrier list into the cache and match the lines waiting for a carrier",
  synopsis: '[--json]',
  parse(args) {
    const { values } = usageErrors(() =>
      parseArgs({ args, options: { ...jsonFlag }, strict: true, allowPositionals: false }),
    );
    return { json: values.json ?? false };
  },
  async run(app, input) {
    let result: { carriers: number; linesMatched: number };
    try {
      result = await refreshCarriers(app);
    } catch (error) {
      throw new CliError(firstLine(error), exitCodes.failed);
    }
    if (input.json) app.io.out(formatJson(result));
    else {
      app.io.out(
        `Cached ${result.carriers} carriers from the tracking service; ${result.linesMatched} waiting line(s) matched.`,
      );
    }
    return exitCodes.ok;
  },
});

export const carriersList = defineCommand({
  name: 'carriers:list',
  summary: 'the cached carrier list (slug and label)',
  synopsis: '[--search <text>] [--json]',
  details: ['--search matches slugs and labels, ignoring case, spaces and punctuation.'],
  parse(args) {
    const { values } = usageErrors(() =>
      parseArgs({
        args,
        options: { search: { type: 'string' }, ...jsonFlag },
        strict: true,
        allowPositionals: false,
      }),
    );
    return validateFlags(
      z.object({
        search: storableString().trim().min(1, 'is empty').optional(),
        json: z.boolean().default(false),
      }),
      values,
    );
  },
  async run(app, input) {
    const all = await app.carriers.providers();
    const refreshedAt = await app.carriers.lastRefreshedAt();
    const key = input.search ? normaliseCarrierName(input.search) : '';
    const text = input.search?.toLowerCase() ?? '';
    const carriers = input.search
      ? all.filter(
          (c) =>
            c.slug.includes(text) ||
            c.label.toLowerCase().includes(text) ||
            (key !== '' &&
              (normaliseCarrierName(c.slug).includes(key) || normaliseCarrierName(c.label).includes(key))),
        )
      : all;
    if (input.json) {
      app.io.out(formatJson({ refreshedAt, total: all.length, carriers }));
      return exitCodes.ok;
    }
    if (all.length === 0) {
      app.io.err('The carrier cache is empty: run npm run cli -- carriers:refresh');
      return exitCodes.ok;
    }
    if (carriers.length === 0) app.io.out(`No carrier matches "${input.search ?? ''}".`);
    else {
      app.io.out(
        formatTable(
          [
            { header: 'SLUG', value: (c) => c.slug },
            { header: 'LABEL', value: (c) => c.label },
          ],
          carriers,
        ),
      );
    }
    app.io.out('');
    app.io.out(
      `${carriers.length} of ${all.length} carriers; list refreshed ${refreshedAt ? refreshedAt.toISOString() : 'never'}.`,
    );
    return exitCodes.ok;
  },
});

export const carriersMap = defineCommand({
  name: 'carriers:map',
  summary: "map a store carrier name to a carrier slug for one shop; releases that name's waiting lines",
  synopsis: '--shop <domain> --name <store carrier name> --slug <slug> [--json]',
  details: ['The mapping wins over every automatic match. A running worker then creates the trackers.'],
  parse(args) {
    const { values } = usageErrors(() =>
      parseArgs({
        args,
        options: {
          shop: { type: 'string' },
          name: { type: 'string' },
          slug: { type: 'string' },
          ...jsonFlag,
        },
        strict: true,
        allowPositionals: false,
      }),
    );
    requireFlags(values, { shop: '<domain>', name: '<store carrier name>', slug: '<slug>' });
    return validateFlags(
      z.object({
        shop: shopDomainFlag,
        name: mapCarrierInput.shape.carrierName,
        slug: mapCarrierInput.shape.slug,
        json: z.boolean().default(false),
      }),
      values,
    );
  },
  async run(app, input) {
    const result = await mapCarrier(app, {
      shopDomain: input.shop,
      carrierName: input.name,
      slug: input.slug,
    });
    if (!result.ok) {
      if (input.json) app.io.out(formatJson(result));
      const hint = result.reason === 'shop_not_found' ? ' See shop:list.' : '';
      app.io.err(`error: ${result.message}${hint}`);
      return result.reason === 'invalid_input' ? exitCodes.usage : exitCodes.failed;
    }
    if (input.json) app.io.out(formatJson(result));
    else {
      app.io.out(`Mapped "${result.carrierName}" to ${result.slug} for ${result.shopDomain}.`);
      app.io.out(
        `${result.linesRemapped} line(s) remapped, ${result.stillWaiting} still waiting; ${result.trackersTouched} tracker(s) changed (the worker syncs them).`,
      );
    }
    return exitCodes.ok;
  },
});
