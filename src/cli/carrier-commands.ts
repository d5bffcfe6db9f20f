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
  jsonFlagValue,
  jsonOnly,
  readFlags,
  shopDomainFlag,
  stringOption,
} from './command.js';
import { firstLine } from './context.js';
import { formatJson, printResult, printTable } from './output.js';

export const carriersRefresh = defineCommand({
  name: 'carriers:refresh',
  summary: "fetch the service's carrier list into the cache and match the lines waiting for a carrier",
  ...jsonOnly,
  async run(app, input) {
    let result: { carriers: number; linesMatched: number };
    try {
      result = await refreshCarriers(app);
    } catch (error) {
      throw new CliError(firstLine(error), exitCodes.failed);
    }
    return printResult(app.io, input.json, result, (r) =>
      app.io.out(
        `Cached ${r.carriers} carriers from the tracking service; ${r.linesMatched} waiting line(s) matched.`,
      ),
    );
  },
});

export const carriersList = defineCommand({
  name: 'carriers:list',
  summary: 'the cached carrier list (slug and label)',
  synopsis: '[--search <text>] [--json]',
  details: ['--search matches slugs and labels, ignoring case, spaces and punctuation.'],
  parse: (args) =>
    readFlags(args, {
      options: { search: stringOption, ...jsonFlag },
      schema: z.object({
        search: storableString().trim().min(1, 'is empty').optional(),
        json: jsonFlagValue,
      }),
    }),
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
    return printResult(app.io, input.json, { refreshedAt, total: all.length, carriers }, () => {
      if (all.length === 0) {
        app.io.err('The carrier cache is empty: run npm run cli -- carriers:refresh');
        return;
      }
      printTable(
        app.io,
        [
          { header: 'SLUG', value: (c) => c.slug },
          { header: 'LABEL', value: (c) => c.label },
        ],
        carriers,
        `No carrier matches "${input.search ?? ''}".`,
      );
      app.io.out('');
      app.io.out(
        `${carriers.length} of ${all.length} carriers; list refreshed ${refreshedAt ? refreshedAt.toISOString() : 'never'}.`,
      );
    });
  },
});

export const carriersMap = defineCommand({
  name: 'carriers:map',
  summary: "map a store carrier name to a carrier slug for one shop; releases that name's waiting lines",
  synopsis: '--shop <domain> --name <store carrier name> --slug <slug> [--json]',
  details: ['The mapping wins over every automatic match. A running worker then creates the trackers.'],
  parse: (args) =>
    readFlags(args, {
      options: { shop: stringOption, name: stringOption, slug: stringOption, ...jsonFlag },
      required: { shop: '<domain>', name: '<store carrier name>', slug: '<slug>' },
      schema: z.object({
        shop: shopDomainFlag,
        name: mapCarrierInput.shape.carrierName,
        slug: mapCarrierInput.shape.slug,
        json: jsonFlagValue,
      }),
    }),
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
    return printResult(app.io, input.json, result, (r) => {
      app.io.out(`Mapped "${r.carrierName}" to ${r.slug} for ${r.shopDomain}.`);
      app.io.out(
        `${r.linesRemapped} line(s) remapped, ${r.stillWaiting} still waiting; ${r.trackersTouched} tracker(s) changed (the worker syncs them).`,
      );
    });
  },
});
