/**
 * Text every database can store: NUL and the other C0 control characters (but tab and newlines) dropped,
 * lone UTF-16 surrogates replaced by U+FFFD. PostgreSQL refuses both in text columns; without this one
 * such character made a poison delivery, retried and never applied.
 */
export function storableText(value: string): string {
  return value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '').toWellFormed();
}
