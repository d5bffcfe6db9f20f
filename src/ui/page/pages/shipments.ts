import { h } from '../dom.js';
import type { PageModule } from '../page.js';

export const shipmentsPage: PageModule = () => {
  const element = h(
    's-page',
    { heading: 'Shipments' },
    h('s-section', null, h('s-spinner', { accessibilityLabel: 'Loading' })),
  );
  return { element, ready: Promise.resolve() };
};
