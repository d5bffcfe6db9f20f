import type { ParcelGroup } from '../shipments/status-table.js';

/**
 * The shopper's page in the store's language: English, German, French, Spanish and Dutch; any other
 * locale falls back to English. The parcel's status is said by its group (the service's own texts, such
 * as event messages, are shown as the carrier wrote them).
 */

export interface ProxyMessages {
  title: string;
  intro: string;
  orderLabel: string;
  emailLabel: string;
  byNumber: string;
  order: string;
  /** Heading of a logged-in customer's orders. */
  recentOrders: string;
  noParcels: string;
  trackingLabel: string;
  submit: string;
  notFound: string;
  /** After a field's label: the value holds a character no lookup can take (a NUL). */
  unusable: string;
  status: string;
  /** The service's estimate; `{day}` is the weekday and date ("Thursday, 27 November"). */
  arriving: string;
  /** An estimate predicted from the store's own deliveries (not the carrier's word). */
  expectedBy: string;
  carrier: string;
  trackOnCarrier: string;
  history: string;
  noEvents: string;
  updated: string;
  groups: Record<ParcelGroup, string>;
}

const en: ProxyMessages = {
  title: 'Track your order',
  intro: 'Enter your order number and the email you ordered with.',
  orderLabel: 'Order number',
  emailLabel: 'Email',
  byNumber: 'Or look up one parcel by its tracking number.',
  order: 'Order',
  recentOrders: 'Your recent orders',
  noParcels: 'This order has no parcel on its way yet.',
  trackingLabel: 'Tracking number',
  submit: 'Track',
  notFound: 'We could not find a shipment with these details. Check them and try again.',
  unusable: 'contains a character that cannot be looked up. Check it and try again.',
  status: 'Status',
  arriving: 'Arriving {day}',
  expectedBy: 'Expected by {day}',
  carrier: 'Carrier',
  trackOnCarrier: 'Track on the carrier’s website',
  history: 'Shipment history',
  noEvents: 'No scan yet: the carrier has not reported the parcel.',
  updated: 'Updated',
  groups: {
    not_scanned: 'Not scanned yet',
    info_received: 'Label created',
    in_transit: 'In transit',
    out_for_delivery: 'Out for delivery',
    ready_for_pickup: 'Ready for pickup',
    failed_attempt: 'Delivery attempt failed',
    exception: 'Delayed or held',
    not_followed: 'Tracking unavailable',
    delivered: 'Delivered',
    ended: 'No longer tracked',
  },
};

const de: ProxyMessages = {
  title: 'Sendung verfolgen',
  intro: 'Geben Sie Ihre Bestellnummer und die E-Mail-Adresse Ihrer Bestellung ein.',
  orderLabel: 'Bestellnummer',
  emailLabel: 'E-Mail',
  byNumber: 'Oder ein Paket über seine Sendungsnummer suchen.',
  order: 'Bestellung',
  recentOrders: 'Ihre letzten Bestellungen',
  noParcels: 'Zu dieser Bestellung ist noch kein Paket unterwegs.',
  trackingLabel: 'Sendungsnummer',
  submit: 'Verfolgen',
  notFound:
    'Wir konnten keine Sendung mit diesen Angaben finden. Bitte prüfen Sie sie und versuchen Sie es erneut.',
  unusable:
    'enthält ein Zeichen, mit dem nicht gesucht werden kann. Bitte prüfen Sie die Angabe und versuchen Sie es erneut.',
  status: 'Status',
  arriving: 'Zustellung am {day}',
  expectedBy: 'Voraussichtlich bis {day}',
  carrier: 'Versanddienst',
  trackOnCarrier: 'Beim Versanddienst verfolgen',
  history: 'Sendungsverlauf',
  noEvents: 'Noch kein Scan: Der Versanddienst hat das Paket noch nicht gemeldet.',
  updated: 'Aktualisiert',
  groups: {
    not_scanned: 'Noch nicht erfasst',
    info_received: 'Etikett erstellt',
    in_transit: 'Unterwegs',
    out_for_delivery: 'In Zustellung',
    ready_for_pickup: 'Abholbereit',
    failed_attempt: 'Zustellversuch fehlgeschlagen',
    exception: 'Verzögert oder angehalten',
    not_followed: 'Sendungsverfolgung nicht verfügbar',
    delivered: 'Zugestellt',
    ended: 'Nicht mehr verfolgt',
  },
};

const fr: ProxyMessages = {
  title: 'Suivre votre commande',
  intro: 'Saisissez votre numéro de commande et l’adresse e-mail de la commande.',
  orderLabel: 'Numéro de commande',
  emailLabel: 'E-mail',
  byNumber: 'Ou recherchez un colis par son numéro de suivi.',
  order: 'Commande',
  recentOrders: 'Vos commandes récentes',
  noParcels: 'Aucun colis de cette commande n’est encore en route.',
  trackingLabel: 'Numéro de suivi',
  submit: 'Suivre',
  notFound: 'Nous n’avons trouvé aucun envoi correspondant. Vérifiez les informations et réessayez.',
  unusable: 'contient un caractère qui ne peut pas être recherché. Vérifiez la saisie et réessayez.',
  status: 'Statut',
  arriving: 'Livraison le {day}',
  expectedBy: 'Livraison prévue d’ici le {day}',
  carrier: 'Transporteur',
  trackOnCarrier: 'Suivre sur le site du transporteur',
  history: 'Historique de l’envoi',
  noEvents: 'Pas encore de scan : le transporteur n’a pas encore signalé le colis.',
  updated: 'Mis à jour',
  groups: {
    not_scanned: 'Pas encore scanné',
    info_received: 'Étiquette créée',
    in_transit: 'En transit',
    out_for_delivery: 'En cours de livraison',
    ready_for_pickup: 'Prêt à être retiré',
    failed_attempt: 'Tentative de livraison échouée',
    exception: 'Retardé ou bloqué',
    not_followed: 'Suivi indisponible',
    delivered: 'Livré',
    ended: 'Plus suivi',
  },
};

const es: ProxyMessages = {
  title: 'Sigue tu pedido',
  intro: 'Introduce tu número de pedido y el correo electrónico con el que pediste.',
  orderLabel: 'Número de pedido',
  emailLabel: 'Correo electrónico',
  byNumber: 'O busca un paquete por su número de seguimiento.',
  order: 'Pedido',
  recentOrders: 'Tus pedidos recientes',
  noParcels: 'Ningún paquete de este pedido está en camino todavía.',
  trackingLabel: 'Número de seguimiento',
  submit: 'Seguir',
  notFound: 'No encontramos ningún envío con estos datos. Revísalos e inténtalo de nuevo.',
  unusable: 'contiene un carácter que no se puede buscar. Revísalo e inténtalo de nuevo.',
  status: 'Estado',
  arriving: 'Llega el {day}',
  expectedBy: 'Entrega prevista para el {day}',
  carrier: 'Transportista',
  trackOnCarrier: 'Seguir en la web del transportista',
  history: 'Historial del envío',
  noEvents: 'Aún sin escaneo: el transportista todavía no ha registrado el paquete.',
  updated: 'Actualizado',
  groups: {
    not_scanned: 'Aún sin escanear',
    info_received: 'Etiqueta creada',
    in_transit: 'En tránsito',
    out_for_delivery: 'En reparto',
    ready_for_pickup: 'Listo para recoger',
    failed_attempt: 'Intento de entrega fallido',
    exception: 'Retrasado o retenido',
    not_followed: 'Seguimiento no disponible',
    delivered: 'Entregado',
    ended: 'Ya no se sigue',
  },
};

const nl: ProxyMessages = {
  title: 'Volg je bestelling',
  intro: 'Vul je bestelnummer in en het e-mailadres waarmee je bestelde.',
  orderLabel: 'Bestelnummer',
  emailLabel: 'E-mail',
  byNumber: 'Of zoek één pakket op met het trackingnummer.',
  order: 'Bestelling',
  recentOrders: 'Je recente bestellingen',
  noParcels: 'Er is nog geen pakket van deze bestelling onderweg.',
  trackingLabel: 'Trackingnummer',
  submit: 'Volgen',
  notFound: 'We hebben geen zending met deze gegevens gevonden. Controleer ze en probeer het opnieuw.',
  unusable: 'bevat een teken waarop niet gezocht kan worden. Controleer het en probeer het opnieuw.',
  status: 'Status',
  arriving: 'Bezorging op {day}',
  expectedBy: 'Verwacht uiterlijk {day}',
  carrier: 'Vervoerder',
  trackOnCarrier: 'Volgen op de website van de vervoerder',
  history: 'Verloop van de zending',
  noEvents: 'Nog geen scan: de vervoerder heeft het pakket nog niet gemeld.',
  updated: 'Bijgewerkt',
  groups: {
    not_scanned: 'Nog niet gescand',
    info_received: 'Label aangemaakt',
    in_transit: 'Onderweg',
    out_for_delivery: 'Wordt vandaag bezorgd',
    ready_for_pickup: 'Klaar om op te halen',
    failed_attempt: 'Bezorgpoging mislukt',
    exception: 'Vertraagd of vastgehouden',
    not_followed: 'Tracking niet beschikbaar',
    delivered: 'Bezorgd',
    ended: 'Niet meer gevolgd',
  },
};

/** By language; a Map, so a name such as `constructor` or `__proto__` finds nothing (no prototype). */
const translations: ReadonlyMap<string, ProxyMessages> = new Map(Object.entries({ en, de, fr, es, nl }));

/** The page's texts in a language proxyLocale chose; English for any other. */
export function proxyMessages(locale: string): ProxyMessages {
  return translations.get(locale) ?? en;
}

/**
 * The page's language: the `locale` parameter, else the first language of Accept-Language that has a
 * translation (`de-AT` → `de`), else English. Only the translations' own names count.
 */
export function proxyLocale(localeParam: string | null, acceptLanguage: string | null): string {
  const candidates = [
    localeParam ?? '',
    ...(acceptLanguage ?? '').split(',').map((part) => part.split(';')[0]!.trim()),
  ];
  for (const candidate of candidates) {
    const language = candidate.toLowerCase().split(/[-_]/)[0] ?? '';
    if (translations.has(language)) return language;
  }
  return 'en';
}
