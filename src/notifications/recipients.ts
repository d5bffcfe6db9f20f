import { isEmailAddress, maxRecipients } from '../settings/notifications.js';

/**
 * Who gets a shop's digest: the store's contact e-mail first, then the further addresses the merchant
 * added (`Shop.digestRecipients`, a JSON array), each address once whatever its case.
 */

/** The further recipients as stored; a value that does not parse gives none. */
export function parseRecipients(stored: string | null | undefined): string[] {
  if (!stored) return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((v): v is string => typeof v === 'string' && isEmailAddress(v))
      .slice(0, maxRecipients);
  } catch {
    return [];
  }
}

/** The further recipients as `Shop.digestRecipients` holds them (null: none). */
export function storedRecipients(addresses: readonly string[]): string | null {
  return addresses.length === 0 ? null : JSON.stringify(addresses);
}

/** Each address once, whatever its case; the first spelling is kept. */
export function uniqueAddresses(addresses: readonly string[]): string[] {
  const seen = new Set<string>();
  return addresses.filter((address) => {
    const key = address.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Everyone the digest goes to: the contact e-mail (when it is an address), then the further recipients. */
export function digestRecipients(shop: {
  contactEmail: string | null;
  digestRecipients: string | null;
}): string[] {
  const contact = shop.contactEmail?.trim() ?? '';
  return uniqueAddresses([
    ...(isEmailAddress(contact) ? [contact] : []),
    ...parseRecipients(shop.digestRecipients),
  ]);
}
