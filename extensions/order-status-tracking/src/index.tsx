import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { appUrl } from './app-url.ts';
import {
  type AnswerParcel,
  type ParcelView,
  parcelsRequestUrl,
  parcelView,
  parseParcelsAnswer,
  type Translate,
} from './view.ts';

/**
 * customer-account.order-status.fulfillment-details.render-after: one instance per fulfilment of the order.
 * It asks the app for that fulfilment's parcels with its session token and shows each one's step, trouble,
 * estimate, latest event and a link to the store's tracking page. Anything but a good answer (no customer
 * logged in, another store, an unknown fulfilment, the app unreachable) shows nothing: the platform's own
 * fulfilment details stay as they are. A page opened from an e-mail's link without logging in asks nothing.
 */
export default async () => {
  render(<ParcelTracking />, document.body);
};

type Load = { kind: 'loading' } | { kind: 'parcels'; parcels: AnswerParcel[] } | { kind: 'none' };

async function loadParcels(fulfillmentId: string, locale: string): Promise<AnswerParcel[]> {
  // A fresh (or still valid, cached) token for every request, as the platform asks.
  const token = await shopify.sessionToken.get();
  const response = await fetch(parcelsRequestUrl(appUrl, fulfillmentId, locale), {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (!response.ok) return [];
  return parseParcelsAnswer(await response.json())?.parcels ?? [];
}

function ParcelTracking() {
  const locale = shopify.localization.language.value.isoCode;
  // Opened from an e-mail's link without logging in: no customer in the token (its `sub` comes only with
  // a logged-in customer), which the app would refuse; nothing is asked.
  const loggedIn = shopify.authenticationState.value === 'fully_authenticated';
  const [load, setLoad] = useState<Load>(loggedIn ? { kind: 'loading' } : { kind: 'none' });
  useEffect(() => {
    if (!loggedIn) return;
    let current = true;
    loadParcels(shopify.fulfillmentId, locale).then(
      (parcels) => current && setLoad(parcels.length > 0 ? { kind: 'parcels', parcels } : { kind: 'none' }),
      () => current && setLoad({ kind: 'none' }),
    );
    return () => {
      current = false;
    };
  }, [locale, loggedIn]);

  if (load.kind === 'loading') return <s-skeleton-paragraph />;
  if (load.kind === 'none') return null;
  const translate: Translate = (key, replacements) => shopify.i18n.translate(key, replacements);
  const views = load.parcels.map((parcel) => parcelView(parcel, { locale, translate }));
  return (
    <s-stack direction="block" gap="base">
      {views.map((view) => (
        <Parcel key={view.trackingNumber} view={view} named={views.length > 1} />
      ))}
    </s-stack>
  );
}

function Parcel({ view, named }: { view: ParcelView; named: boolean }) {
  return (
    <s-stack direction="block" gap="small-200">
      {named && (
        <s-text type="strong">{[view.carrier, view.trackingNumber].filter(Boolean).join(' · ')}</s-text>
      )}
      <s-stack direction="inline" gap="small-200" alignItems="center">
        <s-badge tone={view.tone} icon={view.icon}>
          {view.trouble ? view.trouble.title : view.stepLabel}
        </s-badge>
        <s-text color="subdued">{view.stepOf}</s-text>
      </s-stack>
      <s-progress
        value={view.stepNumber}
        max={view.stepCount}
        tone={view.tone}
        accessibilityLabel={view.progressLabel}
      />
      {view.trouble && <s-text color="subdued">{view.trouble.advice}</s-text>}
      {view.estimate && <s-text type="strong">{view.estimate}</s-text>}
      {view.latestEvent && <s-text color="subdued">{view.latestEvent}</s-text>}
      <s-link href={view.link.href} target="_blank">
        {view.link.label}
      </s-link>
    </s-stack>
  );
}
