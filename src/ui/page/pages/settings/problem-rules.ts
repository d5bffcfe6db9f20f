import type { ProblemRulesView } from '../../../api/problems.js';
import {
  problemRuleDaysMessage,
  problemRuleDaysRange,
  problemRulesSchema,
} from '../../../../settings/problem-rules.js';
import { problemKindLabels, problemRuleWords } from '../../../vocabulary.js';
import { api } from '../../api-client.js';
import { toast } from '../../app-bridge.js';
import { failureToast, loadFailure } from '../../components/load-failure.js';
import type { SaveBar } from '../../components/save-bar-form.js';
import { h, replace } from '../../dom.js';
import { disableForms } from '../../session.js';
import { cardSection, placeIssues, type SettingsCard } from './card.js';

/**
 * Shipment problems: which kinds the Needs attention page, the digest and Slack report, and after how many
 * business days (in the store's time zone) the waiting kinds are reported. Checked with the API's schema
 * (src/settings/problem-rules.ts); only the kinds that changed are sent. `zoneKnown` hears the store's time
 * zone (the notifications card names it beside the digest's hour).
 */
export function problemRulesCard(bar: SaveBar, zoneKnown: (zone: string) => void): SettingsCard {
  const problemsSection = cardSection('problems', 'Shipment problems', 'problem rules');

  type RuleValues = ProblemRulesView['rules'];
  type Kind = keyof RuleValues;
  const kinds = Object.keys(problemKindLabels) as Kind[];
  const ruleSwitches = new Map<Kind, HTMLElementTagNameMap['s-checkbox']>();
  const ruleDays = new Map<Kind, HTMLElementTagNameMap['s-number-field']>();
  for (const kind of kinds) {
    const words = problemRuleWords[kind];
    ruleSwitches.set(kind, h('s-checkbox', { label: problemKindLabels[kind], details: words.when }));
    if (words.days)
      ruleDays.set(
        kind,
        h('s-number-field', {
          label: words.days,
          min: problemRuleDaysRange.min,
          max: problemRuleDaysRange.max,
          step: 1,
        }),
      );
  }
  const zoneText = h('s-text', { type: 'strong', data: { testid: 'store-time-zone' } });
  /** The rules as the form holds them: a kind without days has 0, as the API answers it. */
  const ruleValues = (rules: RuleValues): RuleValues =>
    Object.fromEntries(
      kinds.map((kind) => [
        kind,
        { on: rules[kind]?.on ?? true, days: ruleDays.has(kind) ? (rules[kind]?.days ?? 0) : 0 },
      ]),
    ) as RuleValues;
  let savedRules: RuleValues | null = null;

  const problemRules = bar.form<RuleValues>({
    children: [
      h(
        's-paragraph',
        null,
        'Which problems the Needs attention page, the daily digest and Slack report. Days are business days (Monday to Friday) in the store’s time zone: ',
        zoneText,
        '.',
      ),
      h(
        's-paragraph',
        { color: 'subdued' },
        'Switching a kind off closes its open problems at once; switched on again, it reports what happens from then.',
      ),
      h(
        'div',
        { class: 'problem-rules' },
        kinds.map((kind) =>
          h(
            'div',
            { class: 'problem-rule', data: { kind } },
            ruleSwitches.get(kind),
            ruleDays.has(kind) ? h('div', { class: 'problem-rule-days' }, ruleDays.get(kind)) : null,
          ),
        ),
      ),
    ],
    read: () =>
      Object.fromEntries(
        kinds.map((kind) => {
          const days = ruleDays.get(kind);
          return [kind, { on: ruleSwitches.get(kind)!.checked, days: days ? Number(days.value) : 0 }];
        }),
      ) as RuleValues,
    write: (v) => {
      // Only ever given the saved rules (loaded, saved, or put back by Discard).
      savedRules = v;
      for (const kind of kinds) {
        ruleSwitches.get(kind)!.checked = v[kind].on;
        const days = ruleDays.get(kind);
        if (days) {
          days.value = String(v[kind].days);
          days.error = '';
        }
      }
    },
    save: async (v) => {
      // Every waiting kind's days, checked with the API's schema: each refused one is said on its field.
      for (const field of ruleDays.values()) field.error = '';
      const checked = problemRulesSchema.safeParse(
        Object.fromEntries(
          [...ruleDays.keys()].map((kind) => [kind, { on: v[kind].on, days: v[kind].days }]),
        ),
      );
      if (!checked.success) {
        for (const issue of checked.error.issues) placeDays(issue.path.map(String).join('.'));
        return null;
      }
      // Only the kinds that changed: a kind's days go only with the kinds that have them.
      const body: Partial<Record<Kind, { on: boolean; days?: number }>> = {};
      for (const kind of kinds) {
        const before = savedRules?.[kind];
        if (before && before.on === v[kind].on && before.days === v[kind].days) continue;
        body[kind] = ruleDays.has(kind) ? { on: v[kind].on, days: v[kind].days } : { on: v[kind].on };
      }
      try {
        const answer = await api<ProblemRulesView>('PUT', '/problems/rules', body);
        drawZone(answer.timezone);
        toast('Problem rules saved');
        return ruleValues(answer.rules);
      } catch (error) {
        const unplaced = placeIssues(error, ({ field }) => placeDays(field));
        if (unplaced) failureToast(error);
        return null;
      }
    },
  });

  /** Puts the days' words on the field a refused `kind.days` names; answers whether it is one. */
  function placeDays(field: string): boolean {
    const [kind, part] = field.split('.');
    const days = part === 'days' ? ruleDays.get(kind as Kind) : undefined;
    if (days) days.error = problemRuleDaysMessage;
    return days !== undefined;
  }

  /** The store's time zone, where business days (and the digest's hour) are counted. */
  function drawZone(zone: string): void {
    zoneText.textContent = zone;
    zoneKnown(zone);
  }

  async function loadRules(): Promise<void> {
    try {
      const view = await api<ProblemRulesView>('GET', '/problems/rules');
      drawZone(view.timezone);
      problemRules.setSaved(ruleValues(view.rules));
      replace(problemsSection, problemRules.form);
      disableForms(problemsSection);
    } catch (error) {
      replace(problemsSection, loadFailure('The problem rules could not be loaded', error));
    }
  }

  return { section: problemsSection, load: loadRules };
}
