import type { ParcelGroup } from '../shipments/status-table.js';
import type { ProgressStep, Trouble } from '../shipments/shopper-progress.js';
import { shopperLocaleOf, shopperLocales, type ShopperLocale } from '../lib/shopper-locales.js';

/**
 * The shopper's page in the store's language: the eleven of src/lib/shopper-locales.ts (English, German,
 * French, Spanish, Dutch, Italian, Brazilian Portuguese, Japanese, Polish, Swedish, Arabic); any other
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
  /** The folded lookup forms' summary, once an answer is shown above them. */
  lookUpAnother: string;
  /** The steps list's accessible name. */
  progress: string;
  /** The journey's steps (src/shipments/shopper-progress.ts). */
  steps: Record<ProgressStep, string>;
  /** What went wrong, on its step, and what the shopper can do. */
  troubles: Record<Trouble, { title: string; advice: string }>;
  /** The headline once delivered; `{day}` as in `arriving`. */
  deliveredOn: string;
  /** The headline while no date is known. */
  noEstimate: string;
  /** Above each card of a multi-parcel order; `{n}` and `{total}`. */
  parcelCount: string;
  trackingNumber: string;
  /** The last-mile carrier's own number ("Local delivery number"), when the service gives one. */
  lastMile: string;
  latestUpdate: string;
  /** The history's fold; `{count}` is the number of updates. */
  showAllEvents: string;
  /** Heading of the items in a parcel. */
  items: string;
  /** An item's quantity; `{count}`. */
  quantity: string;
  /** The share link's label and button. */
  shareLink: string;
  copyLink: string;
  /** The copy button once it copied. */
  linkCopied: string;
  /** Under the share link; `{day}` is the last day it opens this page. */
  shareValidUntil: string;
  /** The contact line: the question, then the store's e-mail or the merchant's page. */
  contactQuestion: string;
  contactEmail: string;
  contactPage: string;
  /** An order found with no parcel under way yet. */
  notShipped: string;
  /** A share link past its time, or not for this store. */
  viewExpired: string;
}

const en: ProxyMessages = {
  title: 'Track your order',
  intro: 'Enter your order number and the email you ordered with.',
  orderLabel: 'Order number',
  emailLabel: 'Email',
  byNumber: 'Or look up one parcel by its tracking number.',
  order: 'Order',
  recentOrders: 'Your recent orders',
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
  lookUpAnother: 'Track another order',
  progress: 'Shipping progress',
  steps: {
    ordered: 'Ordered',
    shipped: 'Shipped',
    in_transit: 'In transit',
    out_for_delivery: 'Out for delivery',
    delivered: 'Delivered',
  },
  troubles: {
    exception: {
      title: 'The carrier reported a problem',
      advice: 'Most problems clear up within a day or two. If nothing changes, contact the store.',
    },
    failed_attempt: {
      title: 'The carrier could not deliver',
      advice:
        'The carrier usually tries again or leaves a notice. Its website says how to rearrange the delivery.',
    },
    on_hold: {
      title: 'Held by the carrier',
      advice:
        'Parcels are held at customs or for an address check. The carrier’s website says what it needs.',
    },
    returning: {
      title: 'On its way back to the store',
      advice: 'Contact the store about a new delivery or a refund.',
    },
    pickup: {
      title: 'Ready for pickup',
      advice: 'Your parcel waits at a pickup point. Bring an ID and the tracking number.',
    },
    tracking_unavailable: {
      title: 'Tracking is not available',
      advice:
        'The carrier gives no updates for this number. Contact the store if the parcel does not arrive.',
    },
    cancelled: {
      title: 'This shipment was cancelled',
      advice: 'Contact the store if you have questions about your order.',
    },
  },
  deliveredOn: 'Delivered on {day}',
  noEstimate: 'The carrier has not given a delivery date yet.',
  parcelCount: 'Parcel {n} of {total}',
  trackingNumber: 'Tracking number',
  lastMile: 'Local delivery number',
  latestUpdate: 'Latest update',
  showAllEvents: 'Show all {count} updates',
  items: 'In this parcel',
  quantity: 'Quantity: {count}',
  shareLink: 'Link to this page',
  copyLink: 'Copy link',
  linkCopied: 'Link copied',
  shareValidUntil: 'Anyone with this link can see this page until {day}.',
  contactQuestion: 'Questions about your order?',
  contactEmail: 'Email the store',
  contactPage: 'Contact the store',
  notShipped:
    'We found your order. It has not shipped yet: its parcels show here once they are on their way.',
  viewExpired: 'This link has expired. Look up your order again below.',
};

const de: ProxyMessages = {
  title: 'Sendung verfolgen',
  intro: 'Geben Sie Ihre Bestellnummer und die E-Mail-Adresse Ihrer Bestellung ein.',
  orderLabel: 'Bestellnummer',
  emailLabel: 'E-Mail',
  byNumber: 'Oder ein Paket über seine Sendungsnummer suchen.',
  order: 'Bestellung',
  recentOrders: 'Ihre letzten Bestellungen',
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
  lookUpAnother: 'Weitere Bestellung verfolgen',
  progress: 'Versandfortschritt',
  steps: {
    ordered: 'Bestellt',
    shipped: 'Versendet',
    in_transit: 'Unterwegs',
    out_for_delivery: 'In Zustellung',
    delivered: 'Zugestellt',
  },
  troubles: {
    exception: {
      title: 'Der Versanddienst meldet ein Problem',
      advice:
        'Die meisten Probleme lösen sich innerhalb von ein, zwei Tagen. Ändert sich nichts, wenden Sie sich bitte an den Shop.',
    },
    failed_attempt: {
      title: 'Die Zustellung war nicht möglich',
      advice:
        'Meist versucht der Versanddienst es erneut oder hinterlässt eine Benachrichtigung. Auf seiner Website steht, wie Sie die Zustellung neu vereinbaren.',
    },
    on_hold: {
      title: 'Vom Versanddienst angehalten',
      advice:
        'Pakete werden beim Zoll oder zur Prüfung der Adresse angehalten. Auf der Website des Versanddienstes steht, was er benötigt.',
    },
    returning: {
      title: 'Auf dem Rückweg zum Shop',
      advice: 'Wenden Sie sich wegen einer neuen Zustellung oder einer Erstattung an den Shop.',
    },
    pickup: {
      title: 'Abholbereit',
      advice:
        'Ihr Paket liegt in einer Abholstelle bereit. Bringen Sie einen Ausweis und die Sendungsnummer mit.',
    },
    tracking_unavailable: {
      title: 'Sendungsverfolgung nicht verfügbar',
      advice:
        'Der Versanddienst meldet zu dieser Nummer keine Updates. Wenden Sie sich an den Shop, falls das Paket nicht ankommt.',
    },
    cancelled: {
      title: 'Diese Sendung wurde storniert',
      advice: 'Wenden Sie sich bei Fragen zu Ihrer Bestellung an den Shop.',
    },
  },
  deliveredOn: 'Zugestellt am {day}',
  noEstimate: 'Der Versanddienst hat noch kein Zustelldatum genannt.',
  parcelCount: 'Paket {n} von {total}',
  trackingNumber: 'Sendungsnummer',
  lastMile: 'Sendungsnummer des Zustellers vor Ort',
  latestUpdate: 'Letzte Aktualisierung',
  showAllEvents: 'Alle {count} Einträge anzeigen',
  items: 'In diesem Paket',
  quantity: 'Anzahl: {count}',
  shareLink: 'Link zu dieser Seite',
  copyLink: 'Link kopieren',
  linkCopied: 'Link kopiert',
  shareValidUntil: 'Jeder mit diesem Link kann diese Seite bis {day} aufrufen.',
  contactQuestion: 'Fragen zu Ihrer Bestellung?',
  contactEmail: 'E-Mail an den Shop',
  contactPage: 'Shop kontaktieren',
  notShipped:
    'Wir haben Ihre Bestellung gefunden. Sie wurde noch nicht versendet: Die Pakete erscheinen hier, sobald sie unterwegs sind.',
  viewExpired: 'Dieser Link ist abgelaufen. Suchen Sie Ihre Bestellung unten erneut.',
};

const fr: ProxyMessages = {
  title: 'Suivre votre commande',
  intro: 'Saisissez votre numéro de commande et l’adresse e-mail de la commande.',
  orderLabel: 'Numéro de commande',
  emailLabel: 'E-mail',
  byNumber: 'Ou recherchez un colis par son numéro de suivi.',
  order: 'Commande',
  recentOrders: 'Vos commandes récentes',
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
  lookUpAnother: 'Suivre une autre commande',
  progress: 'Progression de la livraison',
  steps: {
    ordered: 'Commandé',
    shipped: 'Expédié',
    in_transit: 'En transit',
    out_for_delivery: 'En cours de livraison',
    delivered: 'Livré',
  },
  troubles: {
    exception: {
      title: 'Le transporteur a signalé un problème',
      advice:
        'La plupart des problèmes se règlent en un jour ou deux. Si rien ne change, contactez la boutique.',
    },
    failed_attempt: {
      title: 'Le transporteur n’a pas pu livrer',
      advice:
        'Le transporteur repasse généralement ou laisse un avis de passage. Son site indique comment reprogrammer la livraison.',
    },
    on_hold: {
      title: 'Retenu par le transporteur',
      advice:
        'Les colis sont retenus en douane ou pour une vérification d’adresse. Le site du transporteur indique ce qu’il lui faut.',
    },
    returning: {
      title: 'En retour vers la boutique',
      advice: 'Contactez la boutique pour une nouvelle livraison ou un remboursement.',
    },
    pickup: {
      title: 'Prêt à être retiré',
      advice:
        'Votre colis vous attend dans un point de retrait. Munissez-vous d’une pièce d’identité et du numéro de suivi.',
    },
    tracking_unavailable: {
      title: 'Suivi indisponible',
      advice:
        'Le transporteur ne donne aucune mise à jour pour ce numéro. Contactez la boutique si le colis n’arrive pas.',
    },
    cancelled: {
      title: 'Cet envoi a été annulé',
      advice: 'Contactez la boutique si vous avez des questions sur votre commande.',
    },
  },
  deliveredOn: 'Livré le {day}',
  noEstimate: 'Le transporteur n’a pas encore indiqué de date de livraison.',
  parcelCount: 'Colis {n} sur {total}',
  trackingNumber: 'Numéro de suivi',
  lastMile: 'Numéro du livreur local',
  latestUpdate: 'Dernière mise à jour',
  showAllEvents: 'Afficher les {count} mises à jour',
  items: 'Dans ce colis',
  quantity: 'Quantité : {count}',
  shareLink: 'Lien vers cette page',
  copyLink: 'Copier le lien',
  linkCopied: 'Lien copié',
  shareValidUntil: 'Toute personne disposant de ce lien peut consulter cette page jusqu’au {day}.',
  contactQuestion: 'Des questions sur votre commande ?',
  contactEmail: 'Écrire à la boutique',
  contactPage: 'Contacter la boutique',
  notShipped:
    'Nous avons trouvé votre commande. Elle n’a pas encore été expédiée : ses colis apparaîtront ici dès qu’ils seront en route.',
  viewExpired: 'Ce lien a expiré. Recherchez à nouveau votre commande ci-dessous.',
};

const es: ProxyMessages = {
  title: 'Sigue tu pedido',
  intro: 'Introduce tu número de pedido y el correo electrónico con el que pediste.',
  orderLabel: 'Número de pedido',
  emailLabel: 'Correo electrónico',
  byNumber: 'O busca un paquete por su número de seguimiento.',
  order: 'Pedido',
  recentOrders: 'Tus pedidos recientes',
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
  lookUpAnother: 'Seguir otro pedido',
  progress: 'Progreso del envío',
  steps: {
    ordered: 'Pedido realizado',
    shipped: 'Enviado',
    in_transit: 'En tránsito',
    out_for_delivery: 'En reparto',
    delivered: 'Entregado',
  },
  troubles: {
    exception: {
      title: 'El transportista ha informado de un problema',
      advice:
        'La mayoría de los problemas se resuelven en uno o dos días. Si nada cambia, ponte en contacto con la tienda.',
    },
    failed_attempt: {
      title: 'El transportista no pudo hacer la entrega',
      advice:
        'El transportista suele volver a intentarlo o dejar un aviso. En su web se explica cómo programar de nuevo la entrega.',
    },
    on_hold: {
      title: 'Retenido por el transportista',
      advice:
        'Los paquetes se retienen en la aduana o para comprobar la dirección. En la web del transportista se indica qué necesita.',
    },
    returning: {
      title: 'De vuelta a la tienda',
      advice: 'Ponte en contacto con la tienda para un nuevo envío o un reembolso.',
    },
    pickup: {
      title: 'Listo para recoger',
      advice:
        'Tu paquete te espera en un punto de recogida. Lleva un documento de identidad y el número de seguimiento.',
    },
    tracking_unavailable: {
      title: 'Seguimiento no disponible',
      advice:
        'El transportista no ofrece actualizaciones para este número. Ponte en contacto con la tienda si el paquete no llega.',
    },
    cancelled: {
      title: 'Este envío se ha cancelado',
      advice: 'Ponte en contacto con la tienda si tienes preguntas sobre tu pedido.',
    },
  },
  deliveredOn: 'Entregado el {day}',
  noEstimate: 'El transportista aún no ha indicado una fecha de entrega.',
  parcelCount: 'Paquete {n} de {total}',
  trackingNumber: 'Número de seguimiento',
  lastMile: 'Número del repartidor local',
  latestUpdate: 'Última actualización',
  showAllEvents: 'Ver las {count} actualizaciones',
  items: 'En este paquete',
  quantity: 'Cantidad: {count}',
  shareLink: 'Enlace a esta página',
  copyLink: 'Copiar enlace',
  linkCopied: 'Enlace copiado',
  shareValidUntil: 'Cualquier persona con este enlace puede ver esta página hasta el {day}.',
  contactQuestion: '¿Tienes preguntas sobre tu pedido?',
  contactEmail: 'Escribir a la tienda',
  contactPage: 'Contactar con la tienda',
  notShipped:
    'Hemos encontrado tu pedido. Aún no se ha enviado: sus paquetes aparecerán aquí en cuanto estén en camino.',
  viewExpired: 'Este enlace ha caducado. Vuelve a buscar tu pedido abajo.',
};

const nl: ProxyMessages = {
  title: 'Volg je bestelling',
  intro: 'Vul je bestelnummer in en het e-mailadres waarmee je bestelde.',
  orderLabel: 'Bestelnummer',
  emailLabel: 'E-mail',
  byNumber: 'Of zoek één pakket op met het trackingnummer.',
  order: 'Bestelling',
  recentOrders: 'Je recente bestellingen',
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
  lookUpAnother: 'Een andere bestelling volgen',
  progress: 'Verzendstatus',
  steps: {
    ordered: 'Besteld',
    shipped: 'Verzonden',
    in_transit: 'Onderweg',
    out_for_delivery: 'Wordt bezorgd',
    delivered: 'Bezorgd',
  },
  troubles: {
    exception: {
      title: 'De vervoerder meldt een probleem',
      advice:
        'De meeste problemen zijn binnen een dag of twee opgelost. Verandert er niets, neem dan contact op met de winkel.',
    },
    failed_attempt: {
      title: 'De vervoerder kon niet bezorgen',
      advice:
        'De vervoerder probeert het meestal opnieuw of laat een kaartje achter. Op de website van de vervoerder lees je hoe je een nieuwe bezorging regelt.',
    },
    on_hold: {
      title: 'Vastgehouden door de vervoerder',
      advice:
        'Pakketten worden vastgehouden bij de douane of voor een adrescontrole. Op de website van de vervoerder lees je wat er nodig is.',
    },
    returning: {
      title: 'Onderweg terug naar de winkel',
      advice: 'Neem contact op met de winkel voor een nieuwe bezorging of een terugbetaling.',
    },
    pickup: {
      title: 'Klaar om op te halen',
      advice:
        'Je pakket ligt klaar bij een afhaalpunt. Neem een identiteitsbewijs en het trackingnummer mee.',
    },
    tracking_unavailable: {
      title: 'Tracking niet beschikbaar',
      advice:
        'De vervoerder geeft geen updates voor dit nummer. Neem contact op met de winkel als het pakket niet aankomt.',
    },
    cancelled: {
      title: 'Deze zending is geannuleerd',
      advice: 'Neem contact op met de winkel als je vragen hebt over je bestelling.',
    },
  },
  deliveredOn: 'Bezorgd op {day}',
  noEstimate: 'De vervoerder heeft nog geen bezorgdatum doorgegeven.',
  parcelCount: 'Pakket {n} van {total}',
  trackingNumber: 'Trackingnummer',
  lastMile: 'Nummer van de lokale bezorger',
  latestUpdate: 'Laatste update',
  showAllEvents: 'Alle {count} updates tonen',
  items: 'In dit pakket',
  quantity: 'Aantal: {count}',
  shareLink: 'Link naar deze pagina',
  copyLink: 'Link kopiëren',
  linkCopied: 'Link gekopieerd',
  shareValidUntil: 'Iedereen met deze link kan deze pagina tot en met {day} bekijken.',
  contactQuestion: 'Vragen over je bestelling?',
  contactEmail: 'Mail de winkel',
  contactPage: 'Neem contact op met de winkel',
  notShipped:
    'We hebben je bestelling gevonden. Die is nog niet verzonden: de pakketten verschijnen hier zodra ze onderweg zijn.',
  viewExpired: 'Deze link is verlopen. Zoek je bestelling hieronder opnieuw op.',
};

const it: ProxyMessages = {
  title: 'Traccia il tuo ordine',
  intro: 'Inserisci il numero dell’ordine e l’indirizzo email usato per ordinare.',
  orderLabel: 'Numero d’ordine',
  emailLabel: 'Indirizzo email',
  byNumber: 'Oppure cerca un singolo pacco con il suo numero di tracciamento.',
  order: 'Ordine',
  recentOrders: 'I tuoi ordini recenti',
  trackingLabel: 'Numero di tracciamento',
  submit: 'Traccia',
  notFound: 'Non abbiamo trovato nessuna spedizione con questi dati. Controllali e riprova.',
  unusable: 'contiene un carattere che non si può cercare. Controlla e riprova.',
  status: 'Stato',
  arriving: 'Arriva {day}',
  expectedBy: 'Previsto entro {day}',
  carrier: 'Corriere',
  trackOnCarrier: 'Traccia sul sito del corriere',
  history: 'Cronologia della spedizione',
  noEvents: 'Nessuna scansione: il corriere non ha ancora registrato il pacco.',
  updated: 'Aggiornato',
  groups: {
    not_scanned: 'Non ancora scansionato',
    info_received: 'Etichetta creata',
    in_transit: 'In transito',
    out_for_delivery: 'In consegna',
    ready_for_pickup: 'Pronto per il ritiro',
    failed_attempt: 'Tentativo di consegna non riuscito',
    exception: 'In ritardo o in giacenza',
    not_followed: 'Tracciamento non disponibile',
    delivered: 'Consegnato',
    ended: 'Non più tracciato',
  },
  lookUpAnother: 'Traccia un altro ordine',
  progress: 'Avanzamento della spedizione',
  steps: {
    ordered: 'Ordinato',
    shipped: 'Spedito',
    in_transit: 'In transito',
    out_for_delivery: 'In consegna',
    delivered: 'Consegnato',
  },
  troubles: {
    exception: {
      title: 'Il corriere ha segnalato un problema',
      advice:
        'La maggior parte dei problemi si risolve in un giorno o due. Se non cambia nulla, contatta il negozio.',
    },
    failed_attempt: {
      title: 'Il corriere non è riuscito a consegnare',
      advice:
        'Di solito il corriere riprova o lascia un avviso. Sul suo sito trovi come riprogrammare la consegna.',
    },
    on_hold: {
      title: 'Trattenuto dal corriere',
      advice:
        'I pacchi vengono trattenuti in dogana o per una verifica dell’indirizzo. Sul sito del corriere trovi cosa serve.',
    },
    returning: {
      title: 'In ritorno al negozio',
      advice: 'Contatta il negozio per una nuova consegna o un rimborso.',
    },
    pickup: {
      title: 'Pronto per il ritiro',
      advice:
        'Il tuo pacco ti aspetta in un punto di ritiro. Porta un documento d’identità e il numero di tracciamento.',
    },
    tracking_unavailable: {
      title: 'Tracciamento non disponibile',
      advice:
        'Il corriere non fornisce aggiornamenti per questo numero. Contatta il negozio se il pacco non arriva.',
    },
    cancelled: {
      title: 'Questa spedizione è stata annullata',
      advice: 'Contatta il negozio se hai domande sul tuo ordine.',
    },
  },
  deliveredOn: 'Consegnato {day}',
  noEstimate: 'Il corriere non ha ancora indicato una data di consegna.',
  parcelCount: 'Pacco {n} di {total}',
  trackingNumber: 'Numero di tracciamento',
  lastMile: 'Numero del corriere locale',
  latestUpdate: 'Ultimo aggiornamento',
  showAllEvents: 'Mostra tutti i {count} aggiornamenti',
  items: 'In questo pacco',
  quantity: 'Quantità: {count}',
  shareLink: 'Link a questa pagina',
  copyLink: 'Copia link',
  linkCopied: 'Link copiato',
  shareValidUntil: 'Chiunque abbia questo link può vedere questa pagina fino a {day}.',
  contactQuestion: 'Domande sul tuo ordine?',
  contactEmail: 'Scrivi al negozio',
  contactPage: 'Contatta il negozio',
  notShipped:
    'Abbiamo trovato il tuo ordine. Non è ancora stato spedito: i pacchi compariranno qui appena saranno in viaggio.',
  viewExpired: 'Questo link è scaduto. Cerca di nuovo il tuo ordine qui sotto.',
};

const ptBR: ProxyMessages = {
  title: 'Rastreie seu pedido',
  intro: 'Informe o número do pedido e o e-mail usado na compra.',
  orderLabel: 'Número do pedido',
  emailLabel: 'E-mail',
  byNumber: 'Ou consulte um único pacote pelo código de rastreamento.',
  order: 'Pedido',
  recentOrders: 'Seus pedidos recentes',
  trackingLabel: 'Código de rastreamento',
  submit: 'Rastrear',
  notFound: 'Não encontramos nenhum envio com esses dados. Confira e tente novamente.',
  unusable: 'contém um caractere que não pode ser consultado. Confira e tente novamente.',
  status: 'Status',
  arriving: 'Previsão de entrega: {day}',
  expectedBy: 'Deve chegar até {day}',
  carrier: 'Transportadora',
  trackOnCarrier: 'Rastrear no site da transportadora',
  history: 'Histórico do envio',
  noEvents: 'Nenhuma movimentação ainda: a transportadora ainda não registrou o pacote.',
  updated: 'Atualizado',
  groups: {
    not_scanned: 'Ainda sem movimentação',
    info_received: 'Etiqueta criada',
    in_transit: 'Em trânsito',
    out_for_delivery: 'Saiu para entrega',
    ready_for_pickup: 'Pronto para retirada',
    failed_attempt: 'Tentativa de entrega sem sucesso',
    exception: 'Atrasado ou retido',
    not_followed: 'Rastreamento indisponível',
    delivered: 'Entregue',
    ended: 'Não é mais rastreado',
  },
  lookUpAnother: 'Rastrear outro pedido',
  progress: 'Andamento da entrega',
  steps: {
    ordered: 'Pedido feito',
    shipped: 'Enviado',
    in_transit: 'Em trânsito',
    out_for_delivery: 'Saiu para entrega',
    delivered: 'Entregue',
  },
  troubles: {
    exception: {
      title: 'A transportadora informou um problema',
      advice: 'A maioria dos problemas se resolve em um ou dois dias. Se nada mudar, fale com a loja.',
    },
    failed_attempt: {
      title: 'A transportadora não conseguiu entregar',
      advice:
        'A transportadora costuma tentar de novo ou deixar um aviso. O site dela explica como reagendar a entrega.',
    },
    on_hold: {
      title: 'Retido pela transportadora',
      advice:
        'Os pacotes ficam retidos na alfândega ou para conferência do endereço. O site da transportadora informa o que é preciso.',
    },
    returning: {
      title: 'Voltando para a loja',
      advice: 'Fale com a loja sobre uma nova entrega ou um reembolso.',
    },
    pickup: {
      title: 'Pronto para retirada',
      advice:
        'Seu pacote está esperando em um ponto de retirada. Leve um documento com foto e o código de rastreamento.',
    },
    tracking_unavailable: {
      title: 'Rastreamento indisponível',
      advice:
        'A transportadora não envia atualizações para este código. Fale com a loja se o pacote não chegar.',
    },
    cancelled: {
      title: 'Este envio foi cancelado',
      advice: 'Fale com a loja se tiver dúvidas sobre seu pedido.',
    },
  },
  deliveredOn: 'Entregue em {day}',
  noEstimate: 'A transportadora ainda não informou uma data de entrega.',
  parcelCount: 'Pacote {n} de {total}',
  trackingNumber: 'Código de rastreamento',
  lastMile: 'Código da transportadora local',
  latestUpdate: 'Última atualização',
  showAllEvents: 'Ver todas as {count} atualizações',
  items: 'Neste pacote',
  quantity: 'Quantidade: {count}',
  shareLink: 'Link para esta página',
  copyLink: 'Copiar link',
  linkCopied: 'Link copiado',
  shareValidUntil: 'Qualquer pessoa com este link pode ver esta página até {day}.',
  contactQuestion: 'Dúvidas sobre seu pedido?',
  contactEmail: 'Enviar e-mail para a loja',
  contactPage: 'Fale com a loja',
  notShipped:
    'Encontramos seu pedido. Ele ainda não foi enviado: os pacotes aparecem aqui assim que estiverem a caminho.',
  viewExpired: 'Este link expirou. Consulte seu pedido novamente abaixo.',
};

const ja: ProxyMessages = {
  title: 'ご注文の追跡',
  intro: '注文番号と、ご注文時のメールアドレスを入力してください。',
  orderLabel: '注文番号',
  emailLabel: 'メールアドレス',
  byNumber: '追跡番号から荷物を1件ずつ調べることもできます。',
  order: 'ご注文',
  recentOrders: '最近のご注文',
  trackingLabel: '追跡番号',
  submit: '確認する',
  notFound:
    '入力された情報に一致する配送が見つかりませんでした。内容をご確認のうえ、もう一度お試しください。',
  unusable: '検索できない文字が含まれています。内容をご確認のうえ、もう一度お試しください。',
  status: 'ステータス',
  arriving: '{day}にお届け予定',
  expectedBy: '{day}までにお届け見込み',
  carrier: '配送業者',
  trackOnCarrier: '配送業者のサイトで追跡する',
  history: '配送履歴',
  noEvents: 'まだ記録がありません。配送業者から荷物の情報が届いていません。',
  updated: '更新日時',
  groups: {
    not_scanned: '配送業者の受付前',
    info_received: '送り状作成済み',
    in_transit: '輸送中',
    out_for_delivery: '配達中',
    ready_for_pickup: '受け取り可能',
    failed_attempt: '配達できませんでした',
    exception: '遅延・保留中',
    not_followed: '追跡できません',
    delivered: '配達完了',
    ended: '追跡終了',
  },
  lookUpAnother: '別の注文を確認する',
  progress: '配送状況',
  steps: {
    ordered: 'ご注文',
    shipped: '発送済み',
    in_transit: '輸送中',
    out_for_delivery: '配達中',
    delivered: '配達完了',
  },
  troubles: {
    exception: {
      title: '配送業者から問題が報告されました',
      advice: '多くの場合、1〜2日で解消します。状況が変わらない場合は、ストアにお問い合わせください。',
    },
    failed_attempt: {
      title: 'お届けできませんでした',
      advice:
        '通常、配送業者が再度お届けするか、不在票を残します。再配達の手配方法は配送業者のサイトでご確認ください。',
    },
    on_hold: {
      title: '配送業者で保管中です',
      advice:
        '税関手続きや住所確認のため、荷物が保管されています。必要な対応は配送業者のサイトでご確認ください。',
    },
    returning: {
      title: 'ストアへ返送中です',
      advice: '再配送または返金については、ストアにお問い合わせください。',
    },
    pickup: {
      title: '受け取りの準備ができました',
      advice: '荷物は受取場所でお待ちしています。本人確認書類と追跡番号をお持ちください。',
    },
    tracking_unavailable: {
      title: '追跡情報はありません',
      advice:
        'この番号の追跡情報は配送業者から提供されていません。荷物が届かない場合は、ストアにお問い合わせください。',
    },
    cancelled: {
      title: 'この配送はキャンセルされました',
      advice: 'ご注文についてご不明な点は、ストアにお問い合わせください。',
    },
  },
  deliveredOn: '{day}に配達済み',
  noEstimate: '配送業者からのお届け予定日はまだありません。',
  parcelCount: '荷物 {n}/{total}',
  trackingNumber: '追跡番号',
  lastMile: '配達業者の追跡番号',
  latestUpdate: '最新情報',
  showAllEvents: 'すべての更新（{count}件）を表示',
  items: 'この荷物の内容',
  quantity: '数量：{count}',
  shareLink: 'このページへのリンク',
  copyLink: 'リンクをコピー',
  linkCopied: 'リンクをコピーしました',
  shareValidUntil: 'このリンクを知っている人は誰でも、{day}までこのページを表示できます。',
  contactQuestion: 'ご注文についてご質問はありますか？',
  contactEmail: 'ストアにメールで問い合わせる',
  contactPage: 'ストアに問い合わせる',
  notShipped: 'ご注文が見つかりました。まだ発送されていません。発送されると、ここに荷物が表示されます。',
  viewExpired: 'このリンクは有効期限が切れています。下のフォームからもう一度ご注文を検索してください。',
};

const pl: ProxyMessages = {
  title: 'Śledzenie zamówienia',
  intro: 'Proszę podać numer zamówienia i adres e-mail użyty przy zamówieniu.',
  orderLabel: 'Numer zamówienia',
  emailLabel: 'Adres e-mail',
  byNumber: 'Można też wyszukać jedną paczkę po numerze przesyłki.',
  order: 'Zamówienie',
  recentOrders: 'Ostatnie zamówienia',
  trackingLabel: 'Numer przesyłki',
  submit: 'Sprawdź',
  notFound: 'Nie znaleźliśmy przesyłki o podanych danych. Prosimy je sprawdzić i spróbować ponownie.',
  unusable: 'zawiera znak, którego nie można wyszukać. Prosimy sprawdzić wpis i spróbować ponownie.',
  status: 'Status',
  arriving: 'Dostawa: {day}',
  expectedBy: 'Przewidywana dostawa najpóźniej: {day}',
  carrier: 'Przewoźnik',
  trackOnCarrier: 'Śledzenie na stronie przewoźnika',
  history: 'Historia przesyłki',
  noEvents: 'Brak skanów: przewoźnik nie zarejestrował jeszcze paczki.',
  updated: 'Zaktualizowano',
  groups: {
    not_scanned: 'Oczekuje na nadanie',
    info_received: 'Etykieta utworzona',
    in_transit: 'W drodze',
    out_for_delivery: 'W doręczeniu',
    ready_for_pickup: 'Gotowa do odbioru',
    failed_attempt: 'Nieudana próba doręczenia',
    exception: 'Opóźniona lub wstrzymana',
    not_followed: 'Śledzenie niedostępne',
    delivered: 'Doręczona',
    ended: 'Nie jest już śledzona',
  },
  lookUpAnother: 'Śledzenie innego zamówienia',
  progress: 'Postęp dostawy',
  steps: {
    ordered: 'Zamówiono',
    shipped: 'Wysłano',
    in_transit: 'W drodze',
    out_for_delivery: 'W doręczeniu',
    delivered: 'Doręczono',
  },
  troubles: {
    exception: {
      title: 'Przewoźnik zgłosił problem',
      advice:
        'Większość problemów rozwiązuje się w ciągu dnia lub dwóch. Jeśli nic się nie zmieni, prosimy o kontakt ze sklepem.',
    },
    failed_attempt: {
      title: 'Przewoźnik nie mógł doręczyć przesyłki',
      advice:
        'Przewoźnik zwykle podejmuje kolejną próbę lub zostawia awizo. Na jego stronie można ustalić nowy termin doręczenia.',
    },
    on_hold: {
      title: 'Wstrzymana przez przewoźnika',
      advice:
        'Przesyłki są wstrzymywane w urzędzie celnym lub do weryfikacji adresu. Na stronie przewoźnika można sprawdzić, czego potrzebuje.',
    },
    returning: {
      title: 'W drodze powrotnej do sklepu',
      advice: 'W sprawie ponownej wysyłki lub zwrotu pieniędzy prosimy o kontakt ze sklepem.',
    },
    pickup: {
      title: 'Gotowa do odbioru',
      advice:
        'Paczka czeka w punkcie odbioru. Przy odbiorze potrzebny jest dokument tożsamości i numer przesyłki.',
    },
    tracking_unavailable: {
      title: 'Śledzenie niedostępne',
      advice:
        'Przewoźnik nie udostępnia informacji o tym numerze. Jeśli paczka nie dotrze, prosimy o kontakt ze sklepem.',
    },
    cancelled: {
      title: 'Ta przesyłka została anulowana',
      advice: 'W razie pytań dotyczących zamówienia prosimy o kontakt ze sklepem.',
    },
  },
  deliveredOn: 'Doręczono: {day}',
  noEstimate: 'Przewoźnik nie podał jeszcze daty doręczenia.',
  parcelCount: 'Paczka {n} z {total}',
  trackingNumber: 'Numer przesyłki',
  lastMile: 'Numer u lokalnego przewoźnika',
  latestUpdate: 'Ostatnia aktualizacja',
  showAllEvents: 'Pokaż wszystkie aktualizacje ({count})',
  items: 'Zawartość paczki',
  quantity: 'Ilość: {count}',
  shareLink: 'Link do tej strony',
  copyLink: 'Kopiuj link',
  linkCopied: 'Skopiowano link',
  shareValidUntil: 'Każdy, kto ma ten link, może zobaczyć tę stronę. Ostatni dzień ważności: {day}.',
  contactQuestion: 'Pytania dotyczące zamówienia?',
  contactEmail: 'E-mail do sklepu',
  contactPage: 'Kontakt ze sklepem',
  notShipped:
    'Znaleźliśmy zamówienie. Nie zostało jeszcze wysłane: paczki pojawią się tutaj, gdy będą w drodze.',
  viewExpired: 'Ten link wygasł. Zamówienie można wyszukać ponownie poniżej.',
};

const sv: ProxyMessages = {
  title: 'Spåra din beställning',
  intro: 'Ange ditt ordernummer och e-postadressen du beställde med.',
  orderLabel: 'Ordernummer',
  emailLabel: 'E-post',
  byNumber: 'Eller sök upp ett enskilt paket med dess spårningsnummer.',
  order: 'Beställning',
  recentOrders: 'Dina senaste beställningar',
  trackingLabel: 'Spårningsnummer',
  submit: 'Spåra',
  notFound: 'Vi hittade ingen försändelse med de här uppgifterna. Kontrollera dem och försök igen.',
  unusable: 'innehåller ett tecken som inte går att söka på. Kontrollera och försök igen.',
  status: 'Status',
  arriving: 'Levereras {day}',
  expectedBy: 'Beräknas levereras senast {day}',
  carrier: 'Transportör',
  trackOnCarrier: 'Spåra på transportörens webbplats',
  history: 'Sändningshistorik',
  noEvents: 'Ingen skanning än: transportören har inte registrerat paketet.',
  updated: 'Uppdaterad',
  groups: {
    not_scanned: 'Inte skannat än',
    info_received: 'Etikett skapad',
    in_transit: 'På väg',
    out_for_delivery: 'Ute för leverans',
    ready_for_pickup: 'Redo att hämtas',
    failed_attempt: 'Leveransförsöket misslyckades',
    exception: 'Försenat eller kvarhållet',
    not_followed: 'Spårning inte tillgänglig',
    delivered: 'Levererat',
    ended: 'Spåras inte längre',
  },
  lookUpAnother: 'Spåra en annan beställning',
  progress: 'Leveransförlopp',
  steps: {
    ordered: 'Beställd',
    shipped: 'Skickad',
    in_transit: 'På väg',
    out_for_delivery: 'Ute för leverans',
    delivered: 'Levererad',
  },
  troubles: {
    exception: {
      title: 'Transportören har rapporterat ett problem',
      advice: 'De flesta problem löser sig inom en eller två dagar. Om inget ändras, kontakta butiken.',
    },
    failed_attempt: {
      title: 'Transportören kunde inte leverera',
      advice:
        'Transportören brukar försöka igen eller lämna en avisering. På transportörens webbplats står hur du bokar om leveransen.',
    },
    on_hold: {
      title: 'Kvarhållet av transportören',
      advice:
        'Paket hålls kvar i tullen eller för en adresskontroll. På transportörens webbplats står vad som behövs.',
    },
    returning: {
      title: 'På väg tillbaka till butiken',
      advice: 'Kontakta butiken om en ny leverans eller en återbetalning.',
    },
    pickup: {
      title: 'Redo att hämtas',
      advice: 'Ditt paket väntar på ett utlämningsställe. Ta med legitimation och spårningsnumret.',
    },
    tracking_unavailable: {
      title: 'Spårning är inte tillgänglig',
      advice:
        'Transportören ger inga uppdateringar för det här numret. Kontakta butiken om paketet inte kommer fram.',
    },
    cancelled: {
      title: 'Den här försändelsen har avbokats',
      advice: 'Kontakta butiken om du har frågor om din beställning.',
    },
  },
  deliveredOn: 'Levererad {day}',
  noEstimate: 'Transportören har inte angett något leveransdatum än.',
  parcelCount: 'Paket {n} av {total}',
  trackingNumber: 'Spårningsnummer',
  lastMile: 'Lokalt spårningsnummer',
  latestUpdate: 'Senaste uppdatering',
  showAllEvents: 'Visa alla {count} uppdateringar',
  items: 'I det här paketet',
  quantity: 'Antal: {count}',
  shareLink: 'Länk till den här sidan',
  copyLink: 'Kopiera länk',
  linkCopied: 'Länken har kopierats',
  shareValidUntil: 'Alla som har länken kan se den här sidan till och med {day}.',
  contactQuestion: 'Frågor om din beställning?',
  contactEmail: 'Mejla butiken',
  contactPage: 'Kontakta butiken',
  notShipped: 'Vi hittade din beställning. Den har inte skickats än: paketen visas här när de är på väg.',
  viewExpired: 'Länken har gått ut. Sök upp din beställning igen nedan.',
};

const ar: ProxyMessages = {
  title: 'تتبّع طلبك',
  intro: 'يُرجى إدخال رقم الطلب والبريد الإلكتروني المستخدم في الطلب.',
  orderLabel: 'رقم الطلب',
  emailLabel: 'البريد الإلكتروني',
  byNumber: 'يمكنك أيضًا البحث عن طرد واحد برقم التتبّع الخاص به.',
  order: 'الطلب',
  recentOrders: 'طلباتك الأخيرة',
  trackingLabel: 'رقم التتبّع',
  submit: 'تتبّع',
  notFound: 'لم نعثر على شحنة بهذه البيانات. يُرجى التحقق منها والمحاولة مرة أخرى.',
  unusable: 'يحتوي على حرف لا يمكن البحث به. يُرجى التحقق منه والمحاولة مرة أخرى.',
  status: 'الحالة',
  arriving: 'يصل يوم {day}',
  expectedBy: 'يُتوقع وصوله بحلول {day}',
  carrier: 'شركة الشحن',
  trackOnCarrier: 'التتبّع على موقع شركة الشحن',
  history: 'سجل الشحنة',
  noEvents: 'لا توجد تحديثات بعد: لم تسجّل شركة الشحن الطرد حتى الآن.',
  updated: 'تم التحديث',
  groups: {
    not_scanned: 'لم تستلمه شركة الشحن بعد',
    info_received: 'تم إنشاء بوليصة الشحن',
    in_transit: 'في الطريق',
    out_for_delivery: 'خرج للتوصيل',
    ready_for_pickup: 'جاهز للاستلام',
    failed_attempt: 'تعذّر التسليم',
    exception: 'متأخر أو محتجز',
    not_followed: 'التتبّع غير متاح',
    delivered: 'تم التسليم',
    ended: 'لم يعد قيد التتبّع',
  },
  lookUpAnother: 'تتبّع طلب آخر',
  progress: 'مراحل الشحن',
  steps: {
    ordered: 'تم الطلب',
    shipped: 'تم الشحن',
    in_transit: 'في الطريق',
    out_for_delivery: 'خرج للتوصيل',
    delivered: 'تم التسليم',
  },
  troubles: {
    exception: {
      title: 'أبلغت شركة الشحن عن مشكلة',
      advice: 'تُحل معظم المشكلات خلال يوم أو يومين. إذا لم يتغير شيء، يُرجى التواصل مع المتجر.',
    },
    failed_attempt: {
      title: 'تعذّر على شركة الشحن التسليم',
      advice:
        'عادةً ما تعيد شركة الشحن المحاولة أو تترك إشعارًا. يوضح موقعها الإلكتروني كيفية إعادة جدولة التسليم.',
    },
    on_hold: {
      title: 'محتجز لدى شركة الشحن',
      advice: 'تُحتجز الطرود لدى الجمارك أو للتحقق من العنوان. يوضح موقع شركة الشحن ما تحتاج إليه.',
    },
    returning: {
      title: 'في طريق العودة إلى المتجر',
      advice: 'يُرجى التواصل مع المتجر بشأن توصيل جديد أو استرداد المبلغ.',
    },
    pickup: {
      title: 'جاهز للاستلام',
      advice: 'طردك بانتظارك في نقطة استلام. يُرجى إحضار إثبات هوية ورقم التتبّع.',
    },
    tracking_unavailable: {
      title: 'التتبّع غير متاح',
      advice: 'لا تقدّم شركة الشحن تحديثات لهذا الرقم. يُرجى التواصل مع المتجر إذا لم يصل الطرد.',
    },
    cancelled: {
      title: 'أُلغيت هذه الشحنة',
      advice: 'يُرجى التواصل مع المتجر إذا كانت لديك أسئلة بشأن طلبك.',
    },
  },
  deliveredOn: 'تم التسليم يوم {day}',
  noEstimate: 'لم تحدد شركة الشحن موعد التسليم بعد.',
  parcelCount: 'الطرد {n} من {total}',
  trackingNumber: 'رقم التتبّع',
  lastMile: 'رقم التتبّع لدى شركة التوصيل المحلية',
  latestUpdate: 'آخر تحديث',
  showAllEvents: 'عرض كل التحديثات ({count})',
  items: 'محتويات هذا الطرد',
  quantity: 'الكمية: {count}',
  shareLink: 'رابط هذه الصفحة',
  copyLink: 'نسخ الرابط',
  linkCopied: 'تم نسخ الرابط',
  shareValidUntil: 'يمكن لأي شخص لديه هذا الرابط عرض هذه الصفحة حتى {day}.',
  contactQuestion: 'هل لديك أسئلة بشأن طلبك؟',
  contactEmail: 'مراسلة المتجر بالبريد الإلكتروني',
  contactPage: 'التواصل مع المتجر',
  notShipped: 'عثرنا على طلبك، لكنه لم يُشحن بعد. ستظهر طروده هنا بمجرد أن تصبح في الطريق.',
  viewExpired: 'انتهت صلاحية هذا الرابط. يُرجى البحث عن طلبك مرة أخرى أدناه.',
};

/** Every language the shoppers' side speaks (src/lib/shopper-locales.ts): the compiler checks none is missing. */
const byLocale: Record<ShopperLocale, ProxyMessages> = {
  en,
  de,
  fr,
  es,
  nl,
  it,
  'pt-BR': ptBR,
  ja,
  pl,
  sv,
  ar,
};

/** By language; a Map, so a name such as `constructor` or `__proto__` finds nothing (no prototype). */
const translations: ReadonlyMap<string, ProxyMessages> = new Map(
  shopperLocales.map((locale) => [locale, byLocale[locale]] as const),
);

/** The page's texts in a language proxyLocale chose (a ShopperLocale, e.g. `pt-BR`); English for any other. */
export function proxyMessages(locale: string): ProxyMessages {
  return translations.get(locale) ?? en;
}

/**
 * The page's language: the `locale` parameter, else the first language of Accept-Language the page speaks
 * (`de-AT` → `de`, `pt`/`pt-PT` → `pt-BR`; q-values are not weighed, the header's order counts), else
 * English. Only the languages' own names count (shopperLocaleOf), never an Object prototype member.
 */
export function proxyLocale(localeParam: string | null, acceptLanguage: string | null): ShopperLocale {
  const candidates = [
    localeParam ?? '',
    ...(acceptLanguage ?? '').split(',').map((part) => part.split(';')[0]!),
  ];
  for (const candidate of candidates) {
    const locale = shopperLocaleOf(candidate);
    if (locale) return locale;
  }
  return 'en';
}
