import type { PreviewBody, TrackingPageView } from '../../api/tracking-page.js';
import type { TrackingPageSettings } from '../../../shops/tracking-page-settings.js';
import { api, ApiError, errorText } from '../api-client.js';
import { toast } from '../app-bridge.js';
import { failureToast, isSessionError, loadFailure } from '../components/load-failure.js';
import { hasUnsavedChanges, saveBarForm } from '../components/save-bar-form.js';
import { h, replace } from '../dom.js';
import type { PageModule } from '../page.js';
import { disableForms } from '../session.js';

/**
 * Tracking page: how the shoppers' tracking page looks and what it shows (the accent colour, which parts,
 * a message above the results in each language, the contact line), saved through the admin's save bar.
 * Beside the form, the real page with a sample order as the settings typed so far would make it (POST
 * /api/tracking-page/preview), at a phone's width and a computer's, redrawn as the merchant types.
 *
 * The preview frames are `srcdoc` iframes sandboxed without scripts. A srcdoc document inherits this
 * page's CSP, which allows inline <style> only with this load's nonce: the page gives it to the preview's
 * own <style> elements, and drops its scripts (they would not run) and its links' targets (nothing in a
 * preview leads anywhere).
 */

type Settings = TrackingPageSettings;
type Part = keyof Settings['show'];
type ContactKind = Settings['contact']['kind'];

/** How long typing pauses before the preview is asked for again. */
const previewDelayMs = 250;
/** The longest message (src/shops/tracking-page-settings.ts). */
const maxMessageLength = 500;

/** The frames the page is previewed in: a phone's and a computer's viewport, in CSS pixels. */
const frames = {
  phone: { width: 390, height: 780, title: 'Your tracking page on a phone (390 px wide)' },
  desktop: { width: 1280, height: 800, title: 'Your tracking page on a computer (1280 px wide)' },
} as const;
type FrameName = keyof typeof frames;

const parts: Array<{ part: Part; label: string }> = [
  { part: 'items', label: 'The items in each parcel' },
  { part: 'history', label: 'The shipment history' },
  { part: 'estimate', label: 'The estimated delivery date' },
  { part: 'location', label: 'Where the parcel was last scanned' },
];

const colourMessage = 'Enter a colour as #rrggbb, for example #1a1a1a.';
const urlMessage =
  'Enter the address of a page, starting with https:// (for example https://your-store.com/pages/contact).';

/** A colour as the API keeps it (#rrggbb, lower case) from what was typed (#rgb too), or null. */
function colourOf(typed: string): string | null {
  const value = typed.trim().toLowerCase();
  const short = /^#?([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(value);
  if (short) return `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}`;
  const long = /^#?([0-9a-f]{6})$/.exec(value);
  return long ? `#${long[1]}` : null;
}

/** An http(s) address with a host (what the API accepts for the contact page). */
function isWebAddress(value: string): boolean {
  if (value.length > 500) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The language's name in English ("German", "Brazilian Portuguese"), else its code. */
function languageName(locale: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(locale) ?? locale;
  } catch {
    return locale;
  }
}

/** This page load's style nonce (the document's meta tag, set with its CSP), or null. */
function styleNonce(): string | null {
  const nonce = document.querySelector('meta[name="style-nonce"]')?.getAttribute('content') ?? '';
  return nonce === '' || nonce.startsWith('%') ? null : nonce;
}

/**
 * The preview's document for a sandboxed srcdoc frame: its <style> elements carry the page's nonce, its
 * scripts are dropped and its links lead nowhere. Parsed inert (DOMParser runs nothing); the nonce is
 * written into the text first as well, because parsing a <style> without it is reported as a violation of
 * this page's CSP even in a document that is never shown.
 */
function frameDocument(html: string, nonce: string | null): string {
  const tagged = nonce ? html.replace(/<style(?=[\s>])/gi, `<style nonce="${nonce}"`) : html;
  const doc = new DOMParser().parseFromString(tagged, 'text/html');
  for (const script of doc.querySelectorAll('script')) script.remove();
  for (const style of doc.querySelectorAll('style')) {
    if (nonce) style.setAttribute('nonce', nonce);
    else style.removeAttribute('nonce');
  }
  for (const link of doc.querySelectorAll('a[href]')) {
    link.setAttribute('href', '#');
    link.removeAttribute('target');
  }
  return `<!doctype html>\n${doc.documentElement.outerHTML}`;
}

export const trackingPagePage: PageModule = () => {
  const formSection = h(
    's-section',
    { heading: 'Your tracking page' },
    h('s-spinner', { accessibilityLabel: 'Loading the tracking page settings' }),
  );
  formSection.id = 'tracking-page-settings';

  /* ---------------------------------------------------------------- the form */

  let locales: string[] = ['en'];
  let defaults: Record<string, string> = {};
  let contactEmail: string | null = null;
  /** The message of each language as typed (the text area shows the chosen language's). */
  let messages: Record<string, string> = {};
  let language = 'en';

  const accent = h('s-color-field', {
    label: 'Accent colour',
    details:
      'The progress steps, links and buttons of the page. In your store, your theme’s own colours apply.',
    autocomplete: 'off',
  });
  const show = new Map<Part, HTMLElementTagNameMap['s-checkbox']>(
    parts.map(({ part, label }) => [part, h('s-checkbox', { label })]),
  );
  const languagePicker = h('s-select', { label: 'Language' });
  const message = h('s-text-area', {
    label: 'Message above the results',
    rows: 3,
    maxLength: maxMessageLength,
    autocomplete: 'off',
  });
  const contact = h(
    's-choice-list',
    { label: 'Contact line under the results', name: 'contact' },
    h('s-choice', { value: 'store_email' }, 'The store’s contact e-mail'),
    h('s-choice', { value: 'url' }, 'A page of your store'),
    h('s-choice', { value: 'none' }, 'No contact line'),
  );
  const contactUrl = h('s-text-field', {
    label: 'Contact page address',
    placeholder: 'https://your-store.com/pages/contact',
    autocomplete: 'off',
  });

  function drawLanguages(): void {
    const chosen = language;
    replace(
      languagePicker,
      locales.map((locale) =>
        h(
          's-option',
          { value: locale, selected: locale === chosen },
          `${languageName(locale)}${messages[locale]?.trim() ? ' · your message' : ''}`,
        ),
      ),
    );
    languagePicker.value = chosen;
  }

  /** The text area for the chosen language: its message, and its default text as the placeholder. */
  function drawMessage(): void {
    message.value = messages[language] ?? '';
    message.placeholder = defaults[language] ?? '';
    message.details = `Shown above the results in ${languageName(language)}. Left empty, the page says the text shown here in grey.`;
    message.error = '';
  }

  function drawContact(): void {
    const kind = (contact.values[0] ?? 'store_email') as ContactKind;
    const email = contact.querySelector('s-choice[value="store_email"]')!;
    const words = contactEmail
      ? `The store’s contact e-mail (${contactEmail})`
      : 'The store’s contact e-mail (your store has none yet: no line is shown)';
    if (email.textContent !== words) email.textContent = words;
    contactUrl.hidden = kind !== 'url';
  }

  const readMessages = (): Record<string, string> =>
    Object.fromEntries(
      Object.entries(messages)
        .map(([locale, text]) => [locale, text.trim()] as const)
        .filter(([, text]) => text !== ''),
    );

  /** The form's values as a document; the colour as typed when it is no colour (refused on save). */
  const read = (): Settings => ({
    accentColor: colourOf(accent.value) ?? accent.value.trim(),
    show: Object.fromEntries(parts.map(({ part }) => [part, show.get(part)!.checked])) as Settings['show'],
    messages: readMessages(),
    contact: {
      kind: (contact.values[0] ?? 'store_email') as ContactKind,
      url: contactUrl.value.trim(),
    },
  });

  const settings = saveBarForm<Settings>({
    id: 'tracking-page-save-bar',
    children: [
      accent,
      h('s-divider'),
      h('s-heading', null, 'What the page shows'),
      h('s-paragraph', { color: 'subdued' }, 'The parcel’s status and its delivery steps are always shown.'),
      parts.map(({ part }) => show.get(part)),
      h('s-divider'),
      h('s-heading', null, 'Message'),
      h('div', { class: 'tracking-page-message' }, languagePicker, message),
      h('s-divider'),
      h('s-heading', null, 'Contact'),
      contact,
      contactUrl,
    ],
    read,
    write: (v) => {
      accent.value = v.accentColor;
      accent.error = '';
      for (const { part } of parts) show.get(part)!.checked = v.show[part];
      messages = { ...v.messages };
      contact.values = [v.contact.kind];
      contactUrl.value = v.contact.url;
      contactUrl.error = '';
      drawLanguages();
      drawMessage();
      drawContact();
      previewSoon(0);
    },
    save: async (v) => {
      accent.error = '';
      contactUrl.error = '';
      message.error = '';
      let valid = true;
      if (colourOf(v.accentColor) === null) {
        accent.error = colourMessage;
        valid = false;
      }
      if (v.contact.kind === 'url' && !isWebAddress(v.contact.url)) {
        contactUrl.error = urlMessage;
        valid = false;
      }
      if (!valid) return null;
      // An address left behind by another choice is kept only when the API would take it.
      const body: Settings = {
        ...v,
        contact: { kind: v.contact.kind, url: isWebAddress(v.contact.url) ? v.contact.url : '' },
      };
      try {
        const answer = await api<TrackingPageView>('PUT', '/tracking-page', body);
        toast('Tracking page saved');
        return answer.settings;
      } catch (error) {
        if (!placeIssues(error)) failureToast(error);
        return null;
      }
    },
  });

  /** A refused save's issues on their fields; false when one could not be placed (the caller's toast). */
  function placeIssues(error: unknown): boolean {
    if (!(error instanceof ApiError) || error.issues.length === 0) return false;
    let placed = true;
    for (const issue of error.issues) {
      const [name, part] = issue.field.split('.');
      if (name === 'accentColor') accent.error = colourMessage;
      else if (name === 'contact') contactUrl.error = urlMessage;
      else if (name === 'messages' && part && locales.includes(part)) {
        language = part;
        drawLanguages();
        drawMessage();
        message.error = issue.message;
      } else placed = false;
    }
    return placed;
  }

  languagePicker.addEventListener('change', () => {
    if (languagePicker.value === language || !locales.includes(languagePicker.value)) return;
    language = languagePicker.value;
    drawMessage();
    previewSoon(0);
  });
  message.addEventListener('input', () => {
    const had = Boolean(messages[language]?.trim());
    messages[language] = message.value;
    // The picker says which languages have a message: redrawn only when that changes.
    if (had !== Boolean(message.value.trim())) drawLanguages();
  });
  accent.addEventListener('change', () => {
    accent.error = colourOf(accent.value) === null ? colourMessage : '';
  });
  contact.addEventListener('change', drawContact);
  // Any change of the form redraws the preview once typing pauses (another language: at once, above).
  for (const type of ['input', 'change'])
    settings.form.addEventListener(type, (event) => {
      if (event.target !== languagePicker) previewSoon();
    });

  /* ---------------------------------------------------------------- the preview */

  const previewState = h('s-paragraph', { color: 'subdued', class: 'tracking-preview-state' });
  const frameElements = new Map<FrameName, HTMLIFrameElement>();
  const phoneSection = h(
    's-section',
    { heading: 'Preview on a phone' },
    h(
      's-paragraph',
      { color: 'subdued' },
      'Your page with a sample order, as shoppers will see it once you save. Links and forms in the preview do nothing.',
    ),
    previewState,
    previewFrame('phone'),
  );
  phoneSection.id = 'tracking-page-preview-phone';
  const desktopSection = h('s-section', { heading: 'Preview on a computer' }, previewFrame('desktop'));
  desktopSection.id = 'tracking-page-preview-desktop';

  /** A frame at its device's size, scaled down to the width it is given (never up). */
  function previewFrame(name: FrameName): HTMLElement {
    const size = frames[name];
    const frame = h('iframe', {
      title: size.title,
      width: String(size.width),
      height: String(size.height),
      data: { preview: name },
      attrs: { sandbox: '', referrerpolicy: 'no-referrer' },
    });
    frameElements.set(name, frame);
    const viewport = h('div', { class: `tracking-preview tracking-preview-${name}` }, frame);
    // Sizes from numbers go through the CSSOM (the page's CSP refuses style attributes).
    viewport.style.maxInlineSize = `${size.width}px`;
    viewport.style.aspectRatio = `${size.width} / ${size.height}`;
    new ResizeObserver(() => {
      const scale = Math.min(1, viewport.clientWidth / size.width);
      viewport.style.setProperty('--preview-scale', String(scale));
    }).observe(viewport);
    return viewport;
  }

  let timer = 0;
  /** Requests made; only the latest one's answer is drawn (an older one arriving late is dropped). */
  let asked = 0;
  /** The last complete colour typed: the preview keeps it while a new one is being typed. */
  let lastColour = '#1a1a1a';
  let firstPreview: () => void = () => {};
  const firstPreviewDrawn = new Promise<void>((resolve) => (firstPreview = resolve));

  function previewSoon(delay = previewDelayMs): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void drawPreview(), delay);
  }

  /**
   * The settings as typed, made whole for the preview: a colour not yet complete keeps the last one
   * shown, and a contact page without a valid address shows no contact line yet.
   */
  function previewSettings(): Settings {
    const v = read();
    lastColour = colourOf(v.accentColor) ?? lastColour;
    const contactLine: Settings['contact'] =
      v.contact.kind === 'url'
        ? isWebAddress(v.contact.url)
          ? v.contact
          : { kind: 'none', url: '' }
        : { kind: v.contact.kind, url: isWebAddress(v.contact.url) ? v.contact.url : '' };
    return { ...v, accentColor: lastColour, contact: contactLine };
  }

  async function drawPreview(): Promise<void> {
    const request = ++asked;
    const body: PreviewBody = { settings: previewSettings(), locale: language as PreviewBody['locale'] };
    phoneSection.setAttribute('aria-busy', 'true');
    try {
      const answer = await api<{ html: string }>('POST', '/tracking-page/preview', body);
      if (request !== asked) return;
      const html = frameDocument(answer.html, styleNonce());
      for (const frame of frameElements.values()) if (frame.srcdoc !== html) frame.srcdoc = html;
      replace(previewState);
    } catch (error) {
      if (request !== asked) return;
      replace(
        previewState,
        isSessionError(error)
          ? 'Shown again once the session is back.'
          : `The preview could not be drawn: ${errorText(error)}`,
      );
    } finally {
      if (request === asked) {
        phoneSection.removeAttribute('aria-busy');
        firstPreview();
      }
    }
  }

  /* ---------------------------------------------------------------- loading */

  async function load(): Promise<void> {
    try {
      const view = await api<TrackingPageView>('GET', '/tracking-page');
      locales = view.locales;
      defaults = view.defaults;
      contactEmail = view.contactEmail;
      settings.setSaved(view.settings);
      replace(
        formSection,
        h(
          's-paragraph',
          { color: 'subdued' },
          'The page your customers track their parcels on, in your store (Apps → Track) and from shipping e-mails.',
        ),
        settings.form,
      );
      disableForms(formSection);
      // Drawn after the form (nothing on screen is pushed down): beside it on a wide screen, below on a
      // narrow one.
      layout.append(phoneSection, desktopSection);
      await firstPreviewDrawn;
    } catch (error) {
      replace(formSection, loadFailure('The tracking page settings could not be loaded', error));
    }
  }

  const layout = h('div', { class: 'tracking-page-layout' }, formSection);
  const element = h('s-page', { heading: 'Tracking page', inlineSize: 'large' }, layout);
  return {
    element,
    ready: load(),
    canLeave: () =>
      !hasUnsavedChanges() || window.confirm('Leave this page? Your unsaved changes will be lost.'),
  };
};
