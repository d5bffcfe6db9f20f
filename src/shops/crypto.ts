import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest. Each ciphertext is stored with the id of the key that sealed it, so keys
 * can rotate: new secrets are sealed with the current key, old ones still open with theirs until re-sealed.
 * Only the repository layer calls this: the shop repository (service API keys) and the session storage
 * (the store's access and refresh tokens).
 */

export interface EncryptionKeyring {
  currentKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

export interface SealedSecret {
  keyId: string;
  /** base64 of iv (12 bytes) ‖ auth tag (16 bytes) ‖ ciphertext. */
  ciphertext: string;
}

/**
 * `ENCRYPTION_KEY` is either one base64 key of 32 bytes (key id `k1`) or a comma-separated list of
 * `id:base64key`, the first being current: `k2:NEW...,k1:OLD...`.
 */
const keyringShape =
  'it must be 32 random bytes in base64 (44 characters, e.g. from `openssl rand -base64 32`), or for key ' +
  'rotation a comma-separated list of id:key pairs, the current key first (k2:<new>,k1:<old>)';

export function parseKeyring(value: string): EncryptionKeyring {
  const entries = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (entries.length === 0) throw new Error(`ENCRYPTION_KEY is empty: ${keyringShape}`);
  const keys = new Map<string, Buffer>();
  let currentKeyId: string | undefined;
  for (const entry of entries) {
    const separator = entry.indexOf(':');
    const [id, encoded] =
      separator === -1 ? ['k1', entry] : [entry.slice(0, separator), entry.slice(separator + 1)];
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(id))
      throw new Error(`ENCRYPTION_KEY has a key id that is not 1-32 of A-Z a-z 0-9 _ -: ${keyringShape}`);
    // Never echo the value: it is a secret, or meant to be one.
    const which = separator === -1 ? 'ENCRYPTION_KEY' : `the key "${id}" of ENCRYPTION_KEY`;
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32) {
      throw new Error(`${which} is not 32 bytes in base64 (it decodes to ${key.length}): ${keyringShape}`);
    }
    // Node's decoder skips characters that are not base64, so a typo could still give 32 bytes: a
    // different key, and every stored secret unreadable. Only the exact spelling of 32 bytes is taken
    // (standard or URL-safe alphabet, with or without the padding).
    if (!/^[A-Za-z0-9+/]{43}=?$/.test(encoded) && !/^[A-Za-z0-9_-]{43}=?$/.test(encoded)) {
      throw new Error(`${which} has characters that are not base64: ${keyringShape}`);
    }
    if (keys.has(id)) throw new Error(`ENCRYPTION_KEY names key "${id}" twice`);
    keys.set(id, key);
    currentKeyId ??= id;
  }
  return { currentKeyId: currentKeyId!, keys };
}

export function seal(keyring: EncryptionKeyring, plaintext: string): SealedSecret {
  const key = keyring.keys.get(keyring.currentKeyId)!;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(keyring.currentKeyId));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    keyId: keyring.currentKeyId,
    ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'),
  };
}

export class SecretUnreadableError extends Error {
  constructor(reason: string) {
    super(`Stored secret cannot be decrypted: ${reason}`);
    this.name = 'SecretUnreadableError';
  }
}

export function open(keyring: EncryptionKeyring, sealed: SealedSecret): string {
  const key = keyring.keys.get(sealed.keyId);
  if (!key) throw new SecretUnreadableError(`key "${sealed.keyId}" is not in ENCRYPTION_KEY`);
  const raw = Buffer.from(sealed.ciphertext, 'base64');
  if (raw.length < 28) throw new SecretUnreadableError('ciphertext too short');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(sealed.keyId));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadableError('authentication failed (wrong key or tampered data)');
  }
}

export function needsReseal(keyring: EncryptionKeyring, sealed: SealedSecret): boolean {
  return sealed.keyId !== keyring.currentKeyId;
}

/** How a secret sealed into one text column reads: `sealed:v1:<keyId>:<base64>`. */
const sealedPrefix = 'sealed:v1:';

/** A secret sealed into one text value, for columns that hold it in place of the plaintext. */
export function sealText(keyring: EncryptionKeyring, plaintext: string): string {
  const sealed = seal(keyring, plaintext);
  return `${sealedPrefix}${sealed.keyId}:${sealed.ciphertext}`;
}

export function isSealedText(value: string): boolean {
  return value.startsWith(sealedPrefix);
}

/**
 * The plaintext of a value written by sealText. A value that is not sealed (written before secrets in that
 * column were sealed) is returned as it is: the storage seals it on its next pass.
 */
export function openText(keyring: EncryptionKeyring, value: string): string {
  if (!isSealedText(value)) return value;
  const rest = value.slice(sealedPrefix.length);
  const separator = rest.indexOf(':');
  if (separator <= 0) throw new SecretUnreadableError('malformed sealed value');
  return open(keyring, { keyId: rest.slice(0, separator), ciphertext: rest.slice(separator + 1) });
}

/** True when the value is plaintext, or sealed with a key other than the current one. */
export function textNeedsSealing(keyring: EncryptionKeyring, value: string): boolean {
  return !value.startsWith(`${sealedPrefix}${keyring.currentKeyId}:`);
}
