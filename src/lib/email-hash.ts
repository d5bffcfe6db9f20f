import { createHash } from 'node:crypto';

/**
 * A customer's email as the app keeps it for the shoppers' lookup: SHA-256 of the shop's id (the salt: the
 * same email hashes differently in every shop) and the email trimmed and lower-cased. The email itself
 * is never stored outside the raw webhook bodies.
 */
export function customerEmailHash(shopId: string, email: string): string {
  return createHash('sha256').update(`${shopId}\n${email.trim().toLowerCase()}`, 'utf8').digest('hex');
}

/** Only something that looks like an email is hashed (anything else is no email). */
export function plausibleEmail(value: string | null | undefined): string | null {
  const email = value?.trim() ?? '';
  return email.length > 0 && email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email) ? email : null;
}
