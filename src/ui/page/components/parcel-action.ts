import { actionPlaces, type ParcelAction } from '../../vocabulary.js';
import { h } from '../dom.js';
import { pageHref, type PageKey } from '../router.js';

/**
 * A parcel's one action (the parcel model's, src/shipments/parcel-model.ts) as a link to where the merchant
 * acts in the app (Settings → Carrier mapping…); null when it is done outside the app or by the app itself
 * (the advice beside it says what to do).
 */
export function parcelActionLink(action: ParcelAction | null): HTMLElement | null {
  if (!action || action.byApp) return null;
  const place = actionPlaces[action.place];
  if (!place) return null;
  return h('s-link', { href: pageHref(place.page as PageKey, { section: place.section }) }, action.label);
}
