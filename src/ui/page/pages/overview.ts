import { h } from '../dom.js';
import type { PageModule } from '../page.js';

export const overviewPage: PageModule = () => {
  const element = h(
    's-page',
    { heading: 'Overview' },
    h('s-section', null, h('s-spinner', { accessibilityLabel: 'Loading' })),
  );
  return { element, ready: Promise.resolve() };
};
