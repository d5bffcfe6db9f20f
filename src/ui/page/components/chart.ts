import { h } from '../dom.js';

/**
 * Bar charts drawn as SVG, one bar per row, each row's label and number as text beside it: the numbers
 * read without the chart (and by a screen reader, which is told the chart is the list beside it).
 * Text stays HTML at the page's size at any width; only the bars scale.
 */

export type BarTone = 'info' | 'success' | 'warning' | 'critical' | 'neutral';

export interface BarRow {
  label: string;
  value: number;
  /** The number as shown ("12", "3.4 d", "87 %"). */
  text: string;
  tone?: BarTone;
}

const fills: Record<BarTone, string> = {
  info: '#4a90d9',
  success: '#29845a',
  warning: '#e5a50a',
  critical: '#e22c38',
  neutral: '#8a8a8a',
};

const svgNs = 'http://www.w3.org/2000/svg';

function bar(fraction: number, tone: BarTone): SVGSVGElement {
  const svg = document.createElementNS(svgNs, 'svg');
  svg.setAttribute('class', 'chart-bar');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.setAttribute('height', '12');
  svg.setAttribute('width', '100%');
  const track = document.createElementNS(svgNs, 'rect');
  track.setAttribute('width', '100%');
  track.setAttribute('height', '12');
  track.setAttribute('rx', '3');
  track.setAttribute('fill', '#ebebeb');
  const value = document.createElementNS(svgNs, 'rect');
  // A value above zero always shows a sliver.
  const percent = fraction <= 0 ? 0 : Math.max(1, Math.min(100, fraction * 100));
  value.setAttribute('width', `${percent.toFixed(2)}%`);
  value.setAttribute('height', '12');
  value.setAttribute('rx', '3');
  value.setAttribute('fill', fills[tone]);
  svg.append(track, value);
  return svg;
}

/** A labelled bar list; `max` defaults to the largest value (a rate passes 1). */
export function barChart(options: { title: string; rows: BarRow[]; max?: number }): HTMLElement {
  const max = options.max ?? Math.max(0, ...options.rows.map((r) => r.value));
  return h(
    'figure',
    { class: 'bar-chart', attrs: { 'aria-label': options.title } },
    h('figcaption', { class: 'bar-chart-title' }, options.title),
    h(
      'dl',
      { class: 'bar-chart-rows' },
      options.rows.map((row) =>
        h(
          'div',
          { class: 'bar-chart-row', data: { label: row.label } },
          h('dt', null, row.label),
          h('dd', { class: 'bar-chart-bar' }, bar(max > 0 ? row.value / max : 0, row.tone ?? 'info')),
          h('dd', { class: 'bar-chart-value' }, row.text),
        ),
      ),
    ),
  );
}
