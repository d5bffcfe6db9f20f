const namedEntities: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  reg: '®',
  copy: '©',
  trade: '™',
  hellip: '…',
  ndash: '–',
  mdash: '—',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  deg: '°',
  times: '×',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  auml: 'ä',
  ouml: 'ö',
  uuml: 'ü',
  Auml: 'Ä',
  Ouml: 'Ö',
  Uuml: 'Ü',
  szlig: 'ß',
  eacute: 'é',
  egrave: 'è',
  aacute: 'á',
  agrave: 'à',
  oacute: 'ó',
  iacute: 'í',
  uacute: 'ú',
  ntilde: 'ñ',
  ccedil: 'ç',
};

function decodeCodePoint(code: number): string | null {
  if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
    return null;
  return String.fromCodePoint(code);
}

/** Decodes HTML character references; unknown or invalid ones are left as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z][a-z0-9]{1,15});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const hex = ref[1] === 'x' || ref[1] === 'X';
      return decodeCodePoint(Number.parseInt(ref.slice(hex ? 2 : 1), hex ? 16 : 10)) ?? whole;
    }
    return namedEntities[ref] ?? namedEntities[ref.toLowerCase()] ?? whole;
  });
}

/**
 * Plain text from a string that may hold HTML: tags dropped (line breaks and block ends become spaces),
 * character references decoded, whitespace collapsed. Null when nothing is left.
 */
export function toPlainText(html: string | null | undefined): string | null {
  if (html == null) return null;
  const withoutTags = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<\/?(br|p|div|li|tr|td|h[1-6])\b[^>]*>/gi, ' ')
    .replace(/<\/?[a-z][^>]*>/gi, '');
  const text = decodeEntities(withoutTags).replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}
