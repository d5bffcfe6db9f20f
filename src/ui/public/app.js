/* global window, document, fetch, URL, URLSearchParams, setTimeout, clearTimeout, atob */
// The merchant's settings page. Plain ES module, no build step, no network beyond the app itself.
// App Bridge (the store admin's script) is an optional enhancement, injected asynchronously when the
// page runs embedded; everything works without it.

const APP_BRIDGE_SRC = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';
const params = new URLSearchParams(window.location.search);

/* ------------------------------------------------------------------ session token */

/** The token the admin passed on load (used when App Bridge is absent or fails). */
const launchToken = params.get('id_token');

/** @param {string | null} token @returns {Record<string, unknown> | null} */
function jwtPayload(token) {
  if (!token) return null;
  try {
    const part = token.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/** The app's client id: from a meta tag, or the audience of the launch token. */
function appApiKey() {
  const meta = document.querySelector('meta[name="shopify-api-key"]');
  const fromMeta = meta?.getAttribute('content');
  if (fromMeta) return fromMeta;
  const aud = jwtPayload(launchToken)?.aud;
  return typeof aud === 'string' ? aud : null;
}

/** Injects App Bridge (async, never blocking) when the page is embedded in the admin. */
function loadAppBridge() {
  const embedded = window.top !== window && params.get('embedded') === '1';
  const apiKey = appApiKey();
  if (!embedded || !apiKey || document.querySelector(`script[src="${APP_BRIDGE_SRC}"]`)) return;
  const script = document.createElement('script');
  script.src = APP_BRIDGE_SRC;
  script.async = true;
  script.dataset.apiKey = apiKey;
  script.addEventListener('error', () => script.remove());
  document.head.append(script);
}

/** @returns {{ idToken: () => Promise<string> } | null} */
function appBridge() {
  const shopify = /** @type {any} */ (window).shopify;
  return shopify && typeof shopify.idToken === 'function' ? shopify : null;
}

/**
 * A session token: App Bridge's when present (fresh), else the launch token.
 * @param {boolean} fresh whether the launch token is known to be refused
 * @returns {Promise<string | null>}
 */
async function sessionToken(fresh = false) {
  const bridge = appBridge();
  if (bridge) {
    try {
      const token = await withTimeout(bridge.idToken(), 5000);
      if (token) return token;
    } catch {
      // Fall back to the launch token.
    }
  }
  return fresh ? null : launchToken;
}

/**
 * @template T
 * @param {Promise<T>} promise @param {number} ms @returns {Promise<T>}
 */
function withTimeout(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/* ------------------------------------------------------------------ API */

class ApiError extends Error {
  /** @param {number} status @param {any} body @param {string} message */
  constructor(status, body, message) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/**
 * Calls the app's JSON API with the session token; on a 401 asking for a new session, retries once with
 * a fresh token.
 * @param {string} method @param {string} path (under /api) @param {unknown} [body]
 */
async function api(method, path, body) {
  let token = await sessionToken();
  for (let attempt = 0; ; attempt += 1) {
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      response = await fetch(new URL(`api${path}`, document.baseURI), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'same-origin',
      });
    } catch (error) {
      throw new ApiError(
        0,
        null,
        `Could not reach the app (${error instanceof Error ? error.message : error}).`,
      );
    }
    if (
      response.status === 401 &&
      attempt === 0 &&
      response.headers.get('X-Shopify-Retry-Invalid-Session-Request') === '1'
    ) {
      const fresh = await sessionToken(true);
      if (fresh) {
        token = fresh;
        continue;
      }
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) throw new ApiError(response.status, data, describeFailure(response.status, data, text));
    return data;
  }
}

/** Reasons the tracking service gives, in the merchant's words. */
const REASONS = /** @type {Record<string, string>} */ ({
  ssl_error: 'The store URL must be HTTPS.',
  unauthorized: 'Wrong API key or wrong store: check both against your tracking service account.',
  destination_required: 'The carrier needs the destination (postal code and country) and the order has none.',
  carrier_not_mapped: 'The carrier name is not mapped to a tracking service carrier.',
});

/** @param {number} status @param {any} data @param {string} text */
function describeFailure(status, data, text) {
  if (data && Array.isArray(data.issues) && data.issues.length > 0) {
    const issues = data.issues
      .map((/** @type {{field?: string, message?: string}} */ i) =>
        i.field ? `${i.field}: ${i.message ?? 'invalid'}` : (i.message ?? 'invalid'),
      )
      .join('; ');
    return `Please correct the input — ${issues}`;
  }
  if (status === 401 && data?.error === 'unauthorized') {
    return 'Your session has expired or is not valid. Reload the app from the store admin.';
  }
  const reason = data?.reason;
  const explained = typeof reason === 'string' ? REASONS[reason] : undefined;
  const message = typeof data?.message === 'string' ? data.message : null;
  if (explained && message && !message.includes(explained)) return `${sentence(message)} ${explained}`;
  if (explained) return explained;
  if (message) return message;
  if (typeof data?.error === 'string')
    return `The app refused the request: ${data.error.replace(/_/g, ' ')}.`;
  if (status >= 500) return `The app could not complete the request (HTTP ${status}). Please try again.`;
  return `Unexpected answer from the app (HTTP ${status})${text && !data ? `: ${text.slice(0, 120)}` : ''}.`;
}

/** Ends a message with a full stop. @param {string} text */
function sentence(text) {
  return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

/** @param {unknown} error */
function errorText(error) {
  return error instanceof Error ? error.message : String(error);
}

/* ------------------------------------------------------------------ DOM helpers */

/**
 * Creates an element; children are nodes or text (never parsed as HTML).
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {HTMLElement}
 */
function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key === 'text') element.textContent = value;
    else if (key.startsWith('on') && typeof value === 'function')
      element.addEventListener(key.slice(2), value);
    else if (value === true) element.setAttribute(key, '');
    else element.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'object' ? child : String(child));
  }
  return element;
}

/** @param {string} id @returns {HTMLElement} */
function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element;
}

/** @param {string} id @returns {HTMLInputElement} */
function input(id) {
  return /** @type {HTMLInputElement} */ (byId(id));
}

/**
 * Writes a status message into a live region.
 * @param {string} id @param {string} text @param {'info' | 'success' | 'error' | 'busy'} [kind]
 */
function say(id, text, kind = 'info') {
  const region = byId(id);
  region.textContent = text;
  region.dataset.kind = kind;
}

/** @param {HTMLElement} container @param {...Node} nodes */
function show(container, ...nodes) {
  container.replaceChildren(...nodes);
}

/** @param {string} text */
function empty(text) {
  return h('p', { class: 'empty' }, text);
}

/** @param {unknown} value */
function formatDate(value) {
  if (typeof value !== 'string' || value === '') return null;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  // The service writes `YYYY-MM-DD HH:MM:SS` in UTC; ISO strings carry their own offset.
  const utcPlain = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(value);
  const date = new Date(dateOnly ? `${value}T12:00:00` : utcPlain ? `${value.replace(' ', 'T')}Z` : value);
  if (Number.isNaN(date.getTime())) return value;
  return new Intl.DateTimeFormat(
    undefined,
    dateOnly ? { dateStyle: 'medium' } : { dateStyle: 'medium', timeStyle: 'short' },
  ).format(date);
}

/** @param {unknown} value */
function timeElement(value) {
  const text = formatDate(value);
  return text ? h('time', { datetime: String(value) }, text) : h('span', { class: 'muted' }, '—');
}

/** @param {unknown} value */
function formatNumber(value) {
  return typeof value === 'number' ? new Intl.NumberFormat().format(value) : '—';
}

const STATE_LABELS = /** @type {Record<string, string>} */ ({
  creating: 'Creating',
  active: 'Active',
  removing: 'Removing',
  failed: 'Failed',
  dead: 'Gave up',
  waiting_carrier: 'Waiting for carrier',
  pending: 'Pending',
  synced: 'Synced',
  removed: 'Removed',
});

/** @param {unknown} state */
function stateLabel(state) {
  const key = String(state ?? '');
  const text = STATE_LABELS[key] ?? key.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** @param {unknown} state */
function stateBadge(state) {
  return h(
    'span',
    { class: `badge state-${String(state ?? 'unknown').replace(/[^a-z_]/gi, '')}` },
    stateLabel(state),
  );
}

/**
 * The parcel's status as the app read it from the tracking service ({code, label, tone}).
 * @param {any} status
 */
function statusBadge(status) {
  const tone = String(status?.tone ?? 'transit').replace(/[^a-z_]/gi, '');
  return h(
    'span',
    {
      class: `badge state-${tone}`,
      'data-status': status?.code ?? null,
      title: status?.detail ? String(status.detail).replace(/_/g, ' ') : null,
    },
    status?.label || stateLabel(status?.code),
  );
}

/** The store platform's fulfilment event statuses, in words. */
const PLATFORM_STATUS_LABELS = /** @type {Record<string, string>} */ ({
  LABEL_PRINTED: 'Label printed',
  CARRIER_PICKED_UP: 'Picked up by carrier',
  IN_TRANSIT: 'In transit',
  OUT_FOR_DELIVERY: 'Out for delivery',
  ATTEMPTED_DELIVERY: 'Delivery attempted',
  READY_FOR_PICKUP: 'Ready for pickup',
  DELAYED: 'Delayed',
  DELIVERED: 'Delivered',
  FAILURE: 'Failure',
});

/** @param {unknown} status */
function platformStatusLabel(status) {
  const key = String(status ?? '');
  return PLATFORM_STATUS_LABELS[key] ?? stateLabel(key.toLowerCase());
}

/** Where writing one update to the store's order timeline stands. */
const STORE_WRITE_STATES = /** @type {Record<string, {label: string, tone: string}>} */ ({
  pending: { label: 'Waiting', tone: 'pending' },
  sending: { label: 'Sending', tone: 'pending' },
  sent: { label: 'Written', tone: 'delivered' },
  failed: { label: 'Failed', tone: 'failed' },
  skipped: { label: 'Skipped', tone: 'ended' },
});

/** @param {unknown} state */
function storeWriteBadge(state) {
  const known = STORE_WRITE_STATES[String(state ?? '')];
  return h(
    'span',
    { class: `badge state-${known?.tone ?? 'unknown'}`, 'data-write-state': String(state ?? '') },
    known?.label ?? stateLabel(state),
  );
}

/**
 * The newest event: its message, where and when.
 * @param {any} event {at, message, location} or null
 */
function lastEventContent(event) {
  if (!event || (!event.message && !event.at)) return h('span', { class: 'muted' }, 'No scan yet');
  return h(
    'div',
    { class: 'last-event' },
    event.message ? h('div', {}, event.message) : null,
    h(
      'div',
      { class: 'muted' },
      event.location ? `${event.location} · ` : '',
      event.at ? timeElement(event.at) : 'time not given',
    ),
  );
}

/**
 * Runs an action with its button disabled and busy.
 * @param {HTMLElement} button @param {() => Promise<void>} action
 */
async function busy(button, action) {
  const target = /** @type {HTMLButtonElement} */ (button);
  target.disabled = true;
  target.setAttribute('aria-busy', 'true');
  try {
    await action();
  } finally {
    target.disabled = false;
    target.removeAttribute('aria-busy');
  }
}

/* ------------------------------------------------------------------ 1. connection */

/** @param {any} shop */
function renderShop(shop) {
  if (!shop) return;
  byId('shop-domain').textContent = shop.domain ? `Store: ${shop.domain}` : '';
  renderConnection(shop.connection ?? null);
  renderSettings(shop.settings ?? null);
}

/** @param {any} connection */
function renderConnection(connection) {
  const banners = byId('connection-banners');
  const details = byId('connection-details');
  input('app-name').value = connection?.appName ?? '';
  input('api-key').value = '';
  byId('api-key-stored').hidden = !connection?.hasApiKey;
  /** @type {HTMLElement[]} */
  const notes = [];
  if (connection?.paused && connection.hasApiKey) {
    const since = formatDate(connection.paused.since);
    notes.push(
      h(
        'div',
        { class: 'banner banner-warning', role: 'note' },
        h('strong', {}, 'Syncing is paused'),
        since ? ` since ${since}` : '',
        ': ',
        sentence(
          connection.paused.message ||
            REASONS[connection.paused.reason] ||
            connection.paused.reason ||
            'unknown reason',
        ),
        ' Save the connection again once it is fixed.',
      ),
    );
  }
  if (connection?.lowBalance) {
    notes.push(
      h(
        'div',
        { class: 'banner banner-warning', role: 'note' },
        h('strong', {}, 'Low trackers balance'),
        `: ${formatNumber(connection.trackersBalance)} left. New trackers stop being created when it runs out.`,
      ),
    );
  }
  if (connection && !connection.hasApiKey) {
    notes.push(
      h(
        'div',
        { class: 'banner banner-info', role: 'note' },
        'Not connected yet: enter the app name and API key of your tracking service account.',
      ),
    );
  }
  show(banners, ...notes);
  details.hidden = !connection?.hasApiKey;
  const balanceKnown = typeof connection?.trackersBalance === 'number';
  byId('trackers-balance').textContent = balanceKnown
    ? formatNumber(connection.trackersBalance)
    : 'Not known yet (shown once a tracker has been created)';
  byId('user-plan').textContent = connection?.userPlan || 'Not known yet';
}

/** @param {any} connection */
function connectionSummary(connection) {
  /** @type {string[]} */
  const parts = [];
  if (typeof connection?.trackersBalance === 'number') {
    parts.push(`Trackers balance: ${formatNumber(connection.trackersBalance)}`);
  }
  if (connection?.userPlan) parts.push(`plan: ${connection.userPlan}`);
  return parts.length > 0 ? ` ${parts.join('; ')}.` : '';
}

/** @param {SubmitEvent} event */
async function saveConnection(event) {
  event.preventDefault();
  const appName = input('app-name');
  const apiKey = input('api-key');
  for (const field of [appName, apiKey]) field.removeAttribute('aria-invalid');
  const missing = [];
  if (!appName.value.trim()) missing.push(appName);
  if (!apiKey.value) missing.push(apiKey);
  if (missing.length > 0) {
    for (const field of missing) field.setAttribute('aria-invalid', 'true');
    say(
      'connection-status',
      `Please enter ${missing.map((f) => (f === appName ? 'the app name' : 'the API key')).join(' and ')}.`,
      'error',
    );
    missing[0].focus();
    return;
  }
  say('connection-status', 'Checking the credentials with the tracking service…', 'busy');
  await busy(byId('connection-save'), async () => {
    try {
      const answer = await api('PUT', '/connection', { appName: appName.value.trim(), apiKey: apiKey.value });
      if (answer?.shop) renderShop(answer.shop);
      else apiKey.value = '';
      say('connection-status', `Connected.${connectionSummary(answer?.shop?.connection)}`, 'success');
    } catch (error) {
      say('connection-status', `Not saved: ${errorText(error)}`, 'error');
      apiKey.setAttribute('aria-invalid', 'true');
    }
  });
}

/* ------------------------------------------------------------------ 2. behaviour */

/** @param {any} settings */
function renderSettings(settings) {
  if (!settings) return;
  input('create-on-fulfillment').checked = Boolean(settings.createOnFulfillment);
  input('delete-on-cancel').checked = Boolean(settings.deleteOnCancel);
  input('order-id-source-id').checked = settings.orderIdSource !== 'name';
  input('order-id-source-name').checked = settings.orderIdSource === 'name';
  input('post-fulfillment-events').checked = settings.postFulfillmentEvents !== false;
  input('show-order-delivered').checked = settings.showOrderDelivered !== false;
  if (typeof settings.staleAfterDays === 'number') {
    input('stale-after-days').value = String(settings.staleAfterDays);
    byId('attention-days').textContent = String(settings.staleAfterDays);
  }
}

/** The settings form's field for each settings key, to point at the one the app refused. */
const SETTINGS_FIELDS = /** @type {Record<string, {id: string, name: string}>} */ ({
  createOnFulfillment: { id: 'create-on-fulfillment', name: 'Create a tracker' },
  deleteOnCancel: { id: 'delete-on-cancel', name: 'Delete the tracker' },
  orderIdSource: { id: 'order-id-source-id', name: 'Order id' },
  postFulfillmentEvents: { id: 'post-fulfillment-events', name: 'Write tracking updates' },
  showOrderDelivered: { id: 'show-order-delivered', name: 'Show an order as delivered' },
  staleAfterDays: { id: 'stale-after-days', name: 'Days without a new scan' },
});

/** @param {SubmitEvent} event */
async function saveSettings(event) {
  event.preventDefault();
  for (const { id } of Object.values(SETTINGS_FIELDS)) input(id).removeAttribute('aria-invalid');
  const days = input('stale-after-days');
  const staleAfterDays = Number(days.value);
  if (
    days.value.trim() === '' ||
    !Number.isInteger(staleAfterDays) ||
    staleAfterDays < 1 ||
    staleAfterDays > 90
  ) {
    days.setAttribute('aria-invalid', 'true');
    say(
      'settings-status',
      'Not saved: days without a new scan must be a whole number from 1 to 90.',
      'error',
    );
    days.focus();
    return;
  }
  const body = {
    createOnFulfillment: input('create-on-fulfillment').checked,
    deleteOnCancel: input('delete-on-cancel').checked,
    orderIdSource: input('order-id-source-name').checked ? 'name' : 'id',
    postFulfillmentEvents: input('post-fulfillment-events').checked,
    showOrderDelivered: input('show-order-delivered').checked,
    staleAfterDays,
  };
  say('settings-status', 'Saving…', 'busy');
  let saved = false;
  await busy(byId('settings-save'), async () => {
    try {
      const answer = await api('PUT', '/settings', body);
      renderSettings(answer?.settings ?? body);
      say('settings-status', 'Behaviour saved.', 'success');
      saved = true;
    } catch (error) {
      const issues = error instanceof ApiError && Array.isArray(error.body?.issues) ? error.body.issues : [];
      /** @type {string[]} */
      const named = [];
      for (const issue of issues) {
        const field = SETTINGS_FIELDS[String(issue?.field ?? '')];
        if (!field) continue;
        input(field.id).setAttribute('aria-invalid', 'true');
        named.push(`${field.name}: ${issue.message ?? 'invalid'}`);
      }
      say('settings-status', `Not saved: ${named.length > 0 ? named.join('; ') : errorText(error)}`, 'error');
      const first = issues
        .map((/** @type {any} */ i) => SETTINGS_FIELDS[String(i?.field ?? '')])
        .find(Boolean);
      if (first) input(first.id).focus();
    }
  });
  // The late threshold and the delivered badge change what these lists show.
  if (saved) await Promise.all([loadAttention(), loadShipments()]);
}

/* ------------------------------------------------------------------ 3. carrier mapping */

/** @type {Map<string, string>} slug → label, of every carrier option seen */
const carrierLabels = new Map();
let carrierSearchTimer = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);
let carrierSearchSeq = 0;

/** Fills the shared datalist with the service's carriers matching `search`. @param {string} search */
async function searchCarriers(search) {
  const seq = (carrierSearchSeq += 1);
  try {
    const query = new URLSearchParams({ search, limit: '20' });
    const answer = await api('GET', `/carriers?${query}`);
    if (seq !== carrierSearchSeq) return;
    const carriers = Array.isArray(answer?.carriers) ? answer.carriers : [];
    for (const c of carriers) carrierLabels.set(c.slug, c.label);
    show(
      byId('carrier-options'),
      ...carriers.map((/** @type {{slug: string, label: string}} */ c) =>
        h('option', { value: c.slug, label: `${c.label} (${c.slug})` }, `${c.label} (${c.slug})`),
      ),
    );
  } catch (error) {
    say('carriers-status', `Could not search the carriers: ${errorText(error)}`, 'error');
  }
}

/** @param {Event} event */
function onCarrierInput(event) {
  const value = /** @type {HTMLInputElement} */ (event.target).value.trim();
  clearTimeout(carrierSearchTimer);
  carrierSearchTimer = setTimeout(() => void searchCarriers(value), 150);
}

/** The slug for what the merchant typed: a slug, a label, or "Label (slug)". @param {string} value */
function resolveSlug(value) {
  const text = value.trim();
  const inParens = /\(([^()]+)\)\s*$/.exec(text);
  if (inParens && carrierLabels.has(inParens[1])) return inParens[1];
  if (carrierLabels.has(text)) return text;
  const lower = text.toLowerCase();
  for (const [slug, label] of carrierLabels) {
    if (slug.toLowerCase() === lower || String(label).toLowerCase() === lower) return slug;
  }
  return text;
}

async function loadCarriers() {
  const body = byId('carriers-body');
  try {
    const answer = await api('GET', '/carriers/seen');
    const carriers = Array.isArray(answer?.carriers) ? [...answer.carriers] : [];
    if (carriers.length === 0) {
      show(
        body,
        empty('No carrier names yet. They appear here when your store sends its first fulfilments.'),
      );
      return;
    }
    carriers.sort(
      (a, b) =>
        Number(Boolean(a.mappedTo)) - Number(Boolean(b.mappedTo)) ||
        (b.waiting ?? 0) - (a.waiting ?? 0) ||
        String(a.name).localeCompare(String(b.name)),
    );
    const unmapped = carriers.filter((c) => !c.mappedTo).length;
    show(
      body,
      h(
        'p',
        { class: unmapped ? 'summary-line warn-text' : 'summary-line' },
        unmapped
          ? `${unmapped} carrier name${unmapped === 1 ? '' : 's'} not mapped: their trackers wait until you choose a carrier.`
          : 'Every carrier name is mapped.',
      ),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'carriers-table' },
          h('caption', { class: 'visually-hidden' }, 'Carrier names seen in your fulfilments'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Store carrier name'),
              h('th', { scope: 'col' }, 'Status'),
              h('th', { scope: 'col', class: 'num' }, 'Fulfilments'),
              h('th', { scope: 'col', class: 'num' }, 'Waiting'),
              h('th', { scope: 'col' }, 'Tracking service carrier'),
            ),
          ),
          h('tbody', {}, ...carriers.map((carrier, index) => carrierRow(carrier, index))),
        ),
      ),
    );
  } catch (error) {
    show(body, h('p', { class: 'error-text' }, `Could not load the carriers: ${errorText(error)}`));
  }
}

/** @param {any} carrier @param {number} index */
function carrierRow(carrier, index) {
  const id = `carrier-choice-${index}`;
  const mapped = Boolean(carrier.mappedTo);
  const choice = /** @type {HTMLInputElement} */ (
    h('input', {
      id,
      type: 'text',
      list: 'carrier-options',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'Search carriers…',
      value: carrier.mappedTo ?? '',
      oninput: onCarrierInput,
      onfocus: onCarrierInput,
    })
  );
  const save = h('button', { type: 'submit' }, 'Save');
  const form = h(
    'form',
    { class: 'carrier-form', 'data-carrier': carrier.name },
    h('label', { for: id, class: 'visually-hidden' }, `Tracking service carrier for ${carrier.name}`),
    choice,
    save,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void mapCarrier(carrier.name, choice, save);
  });
  const source = carrier.source ? ` (${String(carrier.source).replace(/_/g, ' ')})` : '';
  return h(
    'tr',
    { class: mapped ? 'mapped' : 'unmapped', 'data-carrier': carrier.name },
    h('th', { scope: 'row' }, carrier.name),
    h(
      'td',
      {},
      mapped
        ? h('span', { class: 'badge state-active' }, `Mapped to ${carrier.mappedTo}${source}`)
        : h('span', { class: 'badge state-unmapped' }, 'Not mapped'),
    ),
    h('td', { class: 'num' }, formatNumber(carrier.fulfillments ?? 0)),
    h(
      'td',
      { class: 'num' },
      carrier.waiting ? h('strong', {}, `${formatNumber(carrier.waiting)} waiting`) : '0',
    ),
    h('td', {}, form),
  );
}

/** @param {string} name @param {HTMLInputElement} choice @param {HTMLElement} button */
async function mapCarrier(name, choice, button) {
  const slug = resolveSlug(choice.value);
  if (!slug) {
    say('carriers-status', `Choose a tracking service carrier for “${name}” first.`, 'error');
    choice.setAttribute('aria-invalid', 'true');
    choice.focus();
    return;
  }
  choice.removeAttribute('aria-invalid');
  say('carriers-status', `Mapping “${name}” to ${slug}…`, 'busy');
  await busy(button, async () => {
    try {
      const answer = await api('PUT', '/carriers/mapping', { name, slug });
      const released = Number(answer?.remapped ?? 0);
      const waiting = Number(answer?.stillWaiting ?? 0);
      say(
        'carriers-status',
        `“${name}” mapped to ${carrierLabels.get(slug) ?? slug}. ${released} tracker${released === 1 ? '' : 's'} released${
          waiting ? `, ${waiting} still waiting` : ''
        }.`,
        'success',
      );
      await Promise.all([loadCarriers(), loadSummary(), loadShipments()]);
    } catch (error) {
      say('carriers-status', `“${name}” not mapped: ${errorText(error)}`, 'error');
      choice.setAttribute('aria-invalid', 'true');
    }
  });
}

/* ------------------------------------------------------------------ 4. shipments */

const shipmentsState = { search: '', page: 1, pageCount: 1 };

async function loadShipments() {
  const body = byId('shipments-body');
  const pager = byId('shipments-pager');
  const query = new URLSearchParams({ search: shipmentsState.search, page: String(shipmentsState.page) });
  say('shipments-status', 'Loading shipments…', 'busy');
  try {
    const answer = await api('GET', `/shipments?${query}`);
    const orders = Array.isArray(answer?.orders) ? answer.orders : [];
    shipmentsState.page = Number(answer?.page ?? 1);
    shipmentsState.pageCount = Math.max(1, Number(answer?.pageCount ?? 1));
    const total = Number(answer?.total ?? orders.length);
    if (orders.length === 0) {
      show(
        body,
        empty(
          shipmentsState.search
            ? `No shipments match “${shipmentsState.search}”.`
            : 'No shipments yet. Trackers appear here when your store fulfils orders.',
        ),
      );
    } else {
      show(body, shipmentsTable(orders));
    }
    pager.hidden = shipmentsState.pageCount <= 1;
    byId('shipments-page').textContent = `Page ${shipmentsState.page} of ${shipmentsState.pageCount}`;
    /** @type {HTMLButtonElement} */ (byId('shipments-prev')).disabled = shipmentsState.page <= 1;
    /** @type {HTMLButtonElement} */ (byId('shipments-next')).disabled =
      shipmentsState.page >= shipmentsState.pageCount;
    say(
      'shipments-status',
      `${formatNumber(total)} order${total === 1 ? '' : 's'}${shipmentsState.search ? ` matching “${shipmentsState.search}”` : ''}.`,
    );
  } catch (error) {
    show(body);
    pager.hidden = true;
    say('shipments-status', `Could not load the shipments: ${errorText(error)}`, 'error');
  }
}

/** @param {any[]} orders */
function shipmentsTable(orders) {
  /** @type {HTMLElement[]} */
  const rows = [];
  for (const order of orders) {
    const trackers = Array.isArray(order.trackers) ? order.trackers : [];
    const orderLabel = order.orderName || `Order ${order.orderId}`;
    const orderCell = (/** @type {Record<string, any>} */ attrs) =>
      h(
        'th',
        attrs,
        orderLabel,
        order.delivered
          ? h('span', { class: 'order-badge' }, h('span', { class: 'badge state-delivered' }, 'Delivered'))
          : null,
      );
    if (trackers.length === 0) {
      rows.push(
        h(
          'tr',
          { 'data-order': order.orderId },
          orderCell({ scope: 'row' }),
          h('td', { colspan: 6, class: 'muted' }, 'No trackers.'),
        ),
      );
      continue;
    }
    trackers.forEach((/** @type {any} */ tracker, /** @type {number} */ index) => {
      rows.push(
        h(
          'tr',
          {
            'data-tracker': tracker.id,
            'data-order': order.orderId,
            class: index === 0 ? 'order-start' : undefined,
          },
          index === 0 ? orderCell({ scope: 'rowgroup', rowspan: trackers.length }) : null,
          h('td', {}, h('code', {}, tracker.trackingNumber)),
          h(
            'td',
            {},
            tracker.carrierName || tracker.provider || '—',
            tracker.carrierName && tracker.provider
              ? h('span', { class: 'muted' }, ` (${tracker.provider})`)
              : null,
          ),
          h('td', { class: 'status-cell' }, ...trackerStatus(tracker)),
          h('td', {}, timeElement(tracker.estimatedDelivery)),
          h('td', {}, lastEventContent(tracker.lastEvent)),
          h(
            'td',
            {},
            tracker.id
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'small',
                    'aria-label': `Timeline of ${tracker.trackingNumber}`,
                    onclick: (/** @type {Event} */ event) =>
                      void openTimeline(tracker, /** @type {HTMLElement} */ (event.currentTarget)),
                  },
                  'Timeline',
                )
              : null,
          ),
        ),
      );
    });
    if (order.moreTrackers > 0) {
      rows.push(
        h(
          'tr',
          { 'data-order': order.orderId, class: 'order-more' },
          h(
            'td',
            { colspan: 7, class: 'muted' },
            `${order.moreTrackers} more shipment(s) of ${orderLabel} not listed here: search by a tracking number to find one.`,
          ),
        ),
      );
    }
  }
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'shipments-table' },
      h('caption', { class: 'visually-hidden' }, 'Orders and their trackers'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Order'),
          h('th', { scope: 'col' }, 'Tracking number'),
          h('th', { scope: 'col' }, 'Carrier'),
          h('th', { scope: 'col' }, 'Status'),
          h('th', { scope: 'col' }, 'Estimated delivery'),
          h('th', { scope: 'col' }, 'Last event'),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      h('tbody', {}, ...rows),
    ),
  );
}

/**
 * A tracker's status cell: the parcel's status once read (else where its tracker stands), the tracker's
 * own state when it is not simply active, and its last error.
 * @param {any} tracker @returns {Node[]}
 */
function trackerStatus(tracker) {
  /** @type {Node[]} */
  const parts = [];
  if (tracker.status) {
    parts.push(statusBadge(tracker.status));
    if (tracker.state && tracker.state !== 'active')
      parts.push(document.createTextNode(' '), stateBadge(tracker.state));
    if (tracker.status.action) parts.push(h('div', { class: 'muted' }, tracker.status.action));
  } else {
    parts.push(stateBadge(tracker.state));
  }
  if (tracker.lastError) {
    parts.push(
      h(
        'div',
        { class: 'error-text' },
        tracker.lastErrorReason ? `${REASONS[tracker.lastErrorReason] ?? tracker.lastErrorReason} ` : '',
        h('span', { class: 'muted' }, tracker.lastError),
      ),
    );
  }
  return parts;
}

/** @type {HTMLElement | null} */
let timelineOpener = null;

/** @param {any} tracker @param {HTMLElement} opener */
async function openTimeline(tracker, opener) {
  timelineOpener = opener;
  const panel = byId('timeline');
  const body = byId('timeline-body');
  panel.hidden = false;
  byId('timeline-heading').textContent = `Timeline of ${tracker.trackingNumber}`;
  show(body, h('p', { class: 'muted', role: 'status' }, 'Loading the timeline…'));
  panel.focus();
  try {
    const answer = await api('GET', `/shipments/${encodeURIComponent(tracker.id)}`);
    show(body, ...timelineContent(answer));
  } catch (error) {
    show(
      body,
      h('p', { class: 'error-text', role: 'alert' }, `Could not load the timeline: ${errorText(error)}`),
    );
  }
}

/**
 * The shipment's status and events: live from the tracking service when it answered, else as the app last
 * stored them; then the updates written to the store's order timeline.
 * @param {any} answer @returns {HTMLElement[]}
 */
function timelineContent(answer) {
  const tracker = answer?.tracker ?? {};
  const live = answer?.shipment ?? null;
  const stored = answer?.stored ?? null;
  /** @type {HTMLElement[]} */
  const parts = [];
  if (answer?.error) {
    parts.push(
      h(
        'p',
        { class: 'banner banner-error' },
        'The tracking service did not answer for this tracker: ',
        answer.error.message || REASONS[answer.error.reason] || answer.error.reason || 'unknown error',
      ),
    );
  }
  /** @type {{when: unknown, message: string, status: string, statusDetail: string | null, location: string | null}[]} */
  let events = [];
  if (live) {
    events = (Array.isArray(live.events) ? live.events : []).map((/** @type {any} */ e) => ({
      when: e.datetime,
      message: e.message,
      status: e.status,
      statusDetail: e.statusDetail,
      location: e.location,
    }));
    const last = events.length > 0 ? events[events.length - 1] : null;
    parts.push(
      statusDetails({
        status: live.statusView ? statusBadge(live.statusView) : stateBadge(live.status),
        carrier: tracker.carrierName || tracker.provider || '—',
        lastEventAt: live.lastEventTime ?? last?.when,
        lastEventText: last ? last.message : '',
        estimatedDelivery: live.estimatedDeliveryDate,
        service: live.shippingService,
      }),
    );
  } else if (stored) {
    events = (Array.isArray(stored.events) ? stored.events : []).map((/** @type {any} */ e) => ({
      when: e.at,
      message: e.message,
      status: e.status,
      statusDetail: e.statusDetail,
      location: e.location,
    }));
    parts.push(
      h(
        'p',
        { class: 'banner banner-info', 'data-source': 'stored' },
        'Showing the status the app last read',
        stored.checkedAt ? ' on ' : '',
        stored.checkedAt ? timeElement(stored.checkedAt) : null,
        '.',
      ),
      statusDetails({
        status: stored.status ? statusBadge(stored.status) : stateBadge(tracker.state),
        carrier: tracker.carrierName || tracker.provider || '—',
        lastEventAt: stored.lastEventAt,
        lastEventText: [stored.lastEventMessage, stored.lastEventLocation].filter(Boolean).join(', '),
        estimatedDelivery: stored.estimatedDelivery,
        service: null,
      }),
    );
  } else if (!answer?.error) {
    parts.push(empty('The tracking service has no shipment data for this tracker yet.'));
  }
  if (live || stored) {
    if (events.length === 0) parts.push(empty('No tracking events yet.'));
    else parts.push(eventsTable(events));
  }
  parts.push(storeEventsPart(Array.isArray(answer?.storeEvents) ? answer.storeEvents : []));
  return parts;
}

/**
 * @param {{status: HTMLElement, carrier: string, lastEventAt: unknown, lastEventText: string,
 *   estimatedDelivery: unknown, service: string | null}} d
 */
function statusDetails(d) {
  return h(
    'dl',
    { class: 'details' },
    h('div', {}, h('dt', {}, 'Status'), h('dd', {}, d.status)),
    h('div', {}, h('dt', {}, 'Carrier'), h('dd', {}, d.carrier)),
    h(
      'div',
      {},
      h('dt', {}, 'Last event'),
      h('dd', {}, timeElement(d.lastEventAt), d.lastEventText ? ` — ${d.lastEventText}` : ''),
    ),
    h('div', {}, h('dt', {}, 'Estimated delivery'), h('dd', {}, timeElement(d.estimatedDelivery))),
    d.service ? h('div', {}, h('dt', {}, 'Service'), h('dd', {}, d.service)) : null,
  );
}

/** @param {{when: unknown, message: string, status: string, statusDetail: string | null, location: string | null}[]} oldestFirst */
function eventsTable(oldestFirst) {
  const events = [...oldestFirst].reverse();
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'events-table' },
      h('caption', {}, `${events.length} event${events.length === 1 ? '' : 's'}, newest first`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Date and time'),
          h('th', { scope: 'col' }, 'Event'),
          h('th', { scope: 'col' }, 'Location'),
        ),
      ),
      h(
        'tbody',
        {},
        ...events.map((event) =>
          h(
            'tr',
            {},
            h('td', {}, timeElement(event.when)),
            h(
              'td',
              {},
              event.message || stateLabel(event.status),
              event.statusDetail
                ? h('span', { class: 'muted' }, ` (${String(event.statusDetail).replace(/_/g, ' ')})`)
                : null,
            ),
            h('td', {}, event.location || h('span', { class: 'muted' }, '—')),
          ),
        ),
      ),
    ),
  );
}

/** The status changes written (or to be written) to the store's order timeline. @param {any[]} events */
function storeEventsPart(events) {
  const heading = h('h4', {}, "Updates to the store's order timeline");
  if (events.length === 0) {
    return h(
      'div',
      { class: 'store-events' },
      heading,
      empty('No tracking updates have been written to the store for this shipment yet.'),
    );
  }
  return h(
    'div',
    { class: 'store-events' },
    heading,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'store-events-table' },
        h('caption', { class: 'visually-hidden' }, "Updates to the store's order timeline, newest first"),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Update'),
            h('th', { scope: 'col' }, 'Happened'),
            h('th', { scope: 'col' }, 'Written to the store'),
          ),
        ),
        h(
          'tbody',
          {},
          ...events.map((/** @type {any} */ e) =>
            h(
              'tr',
              { 'data-store-event': e.id },
              h(
                'th',
                { scope: 'row' },
                platformStatusLabel(e.status),
                e.message ? h('div', { class: 'muted' }, e.message) : null,
              ),
              h('td', {}, timeElement(e.happenedAt)),
              h(
                'td',
                {},
                storeWriteBadge(e.state),
                e.error ? h('div', { class: 'error-text' }, e.error) : null,
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

function closeTimeline() {
  byId('timeline').hidden = true;
  timelineOpener?.focus();
  timelineOpener = null;
}

/* ------------------------------------------------------------------ 4b. needs attention */

const attentionState = { page: 1, pageCount: 1 };

async function loadAttention() {
  const body = byId('attention-body');
  const pager = byId('attention-pager');
  say('attention-status', 'Loading…', 'busy');
  try {
    const answer = await api('GET', `/shipments/attention?page=${attentionState.page}`);
    const shipments = Array.isArray(answer?.shipments) ? answer.shipments : [];
    const total = Number(answer?.total ?? shipments.length);
    const days = Number(answer?.staleAfterDays ?? 0);
    if (days) byId('attention-days').textContent = String(days);
    attentionState.page = Number(answer?.page ?? 1);
    attentionState.pageCount = Math.max(1, Number(answer?.pageCount ?? 1));
    if (shipments.length === 0) {
      show(
        body,
        empty(
          total
            ? 'No more shipments on this page.'
            : `Nothing needs attention: no delivery problems, and every shipment had a scan in the last ${days || 'few'} days.`,
        ),
      );
    } else {
      show(body, attentionTable(shipments));
    }
    pager.hidden = attentionState.pageCount <= 1;
    byId('attention-page').textContent = `Page ${attentionState.page} of ${attentionState.pageCount}`;
    /** @type {HTMLButtonElement} */ (byId('attention-prev')).disabled = attentionState.page <= 1;
    /** @type {HTMLButtonElement} */ (byId('attention-next')).disabled =
      attentionState.page >= attentionState.pageCount;
    say(
      'attention-status',
      total === 0
        ? ''
        : `${formatNumber(total)} shipment${total === 1 ? '' : 's'} need${total === 1 ? 's' : ''} attention` +
            (total > shipments.length ? `; showing ${formatNumber(shipments.length)} on this page.` : '.'),
    );
    show(
      byId('store-writes-body'),
      ...storeWritesContent(answer?.storeWrites, answer?.postFulfillmentEvents),
    );
  } catch (error) {
    show(body);
    pager.hidden = true;
    say('attention-status', `Could not load the shipments needing attention: ${errorText(error)}`, 'error');
  }
}

/** @param {any[]} shipments */
function attentionTable(shipments) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'attention-table' },
      h('caption', { class: 'visually-hidden' }, 'Shipments needing attention, newest problem first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Order'),
          h('th', { scope: 'col' }, 'Tracking number'),
          h('th', { scope: 'col' }, 'Carrier'),
          h('th', { scope: 'col' }, 'Problem'),
          h('th', { scope: 'col' }, 'Last event'),
          h('th', { scope: 'col', class: 'num' }, 'Days quiet'),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      h(
        'tbody',
        {},
        ...shipments.map((/** @type {any} */ s) =>
          h(
            'tr',
            { 'data-tracker': s.id, 'data-reason': s.reason },
            h('th', { scope: 'row' }, s.orderName || `Order ${s.orderId}`),
            h('td', {}, h('code', {}, s.trackingNumber)),
            h(
              'td',
              {},
              s.carrierName || s.provider || '—',
              s.carrierName && s.provider ? h('span', { class: 'muted' }, ` (${s.provider})`) : null,
            ),
            h(
              'td',
              {},
              h('span', { class: `badge state-${s.reason === 'exception' ? 'exception' : 'late'}` }, s.label),
              s.reason !== 'exception' && s.status
                ? h('div', { class: 'muted' }, `Last status: ${s.status.label}`)
                : null,
            ),
            h('td', {}, lastEventContent(s.lastEvent)),
            h('td', { class: 'num' }, formatNumber(s.daysQuiet)),
            h(
              'td',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'small',
                  'aria-label': `Timeline of ${s.trackingNumber} (needs attention)`,
                  onclick: (/** @type {Event} */ event) =>
                    void openTimeline(s, /** @type {HTMLElement} */ (event.currentTarget)),
                },
                'Timeline',
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

/**
 * Status changes the store refused: how many, and the newest few with the store's error.
 * @param {any} writes @param {unknown} enabled @returns {HTMLElement[]}
 */
function storeWritesContent(writes, enabled) {
  const failed = Number(writes?.failed ?? 0);
  const latest = Array.isArray(writes?.latest) ? writes.latest : [];
  if (failed === 0) {
    return [
      h(
        'p',
        { class: 'muted', 'data-store-writes': 'ok' },
        enabled === false
          ? "Writing tracking updates to the store's order timeline is turned off (see Behaviour)."
          : 'Every tracking update so far was written to the store, or is waiting its turn.',
      ),
    ];
  }
  return [
    h(
      'div',
      { class: 'banner banner-error', role: 'note', 'data-store-writes': 'failed' },
      h(
        'strong',
        {},
        `${formatNumber(failed)} tracking update${failed === 1 ? '' : 's'} could not be written`,
      ),
      " to the store's order timeline. Customers do not see these updates in the store.",
    ),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'store-writes-table' },
        h(
          'caption',
          {},
          failed > latest.length
            ? `The latest ${latest.length} of ${formatNumber(failed)}`
            : 'Updates not written',
        ),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Tracking number'),
            h('th', { scope: 'col' }, 'Order'),
            h('th', { scope: 'col' }, 'Update'),
            h('th', { scope: 'col' }, 'Happened'),
            h('th', { scope: 'col' }, 'Error'),
          ),
        ),
        h(
          'tbody',
          {},
          ...latest.map((/** @type {any} */ w) =>
            h(
              'tr',
              { 'data-store-event': w.id },
              h('th', { scope: 'row' }, h('code', {}, w.trackingNumber ?? '—')),
              h('td', {}, w.orderName || '—'),
              h('td', {}, platformStatusLabel(w.status)),
              h('td', {}, timeElement(w.happenedAt)),
              h('td', { class: 'error-text' }, w.error || 'Unknown error'),
            ),
          ),
        ),
      ),
    ),
  ];
}

const SUMMARY_STATES = ['active', 'creating', 'waiting_carrier', 'removing', 'failed', 'dead'];

async function loadSummary() {
  const body = byId('summary-body');
  try {
    const answer = await api('GET', '/summary');
    const counts = answer?.trackers ?? {};
    const total = Number(answer?.total ?? 0);
    if (!total) {
      show(body, empty('No trackers yet.'));
      return;
    }
    const max = Math.max(1, ...SUMMARY_STATES.map((s) => Number(counts[s] ?? 0)));
    show(
      body,
      h(
        'figure',
        { class: 'chart' },
        h(
          'ul',
          { class: 'bars', role: 'list' },
          ...SUMMARY_STATES.map((state) => {
            const value = Number(counts[state] ?? 0);
            const bar = h('span', { class: `bar state-${state}`, 'aria-hidden': 'true' });
            bar.style.width = `${value === 0 ? 0 : Math.max(2, (value / max) * 100)}%`;
            return h(
              'li',
              { class: 'bar-row', 'data-state': state },
              h('span', { class: 'bar-label' }, stateLabel(state)),
              h('span', { class: 'bar-track' }, bar),
              h('span', { class: 'bar-value' }, formatNumber(value)),
            );
          }),
        ),
        h('figcaption', {}, `${formatNumber(total)} tracker${total === 1 ? '' : 's'} in total`),
      ),
    );
  } catch (error) {
    show(body, h('p', { class: 'error-text' }, `Could not load the summary: ${errorText(error)}`));
  }
}

/* ------------------------------------------------------------------ 5. failed operations */

/** @type {{ trackerIds: string[], deliveryIds: string[] }} */
const failedIds = { trackerIds: [], deliveryIds: [] };

async function loadFailed() {
  const body = byId('failed-body');
  const retryAll = /** @type {HTMLButtonElement} */ (byId('failed-retry-all'));
  try {
    const answer = await api('GET', '/failed');
    const trackers = Array.isArray(answer?.trackers) ? answer.trackers : [];
    const deliveries = Array.isArray(answer?.deliveries) ? answer.deliveries : [];
    failedIds.trackerIds = trackers.map((/** @type {any} */ t) => t.id);
    failedIds.deliveryIds = deliveries.map((/** @type {any} */ d) => d.id);
    retryAll.disabled = trackers.length + deliveries.length === 0;
    if (trackers.length + deliveries.length === 0) {
      show(body, empty('Nothing has failed. Trackers and store notifications are all in step.'));
      return;
    }
    /** @type {HTMLElement[]} */
    const parts = [];
    if (trackers.length > 0) parts.push(failedTrackersTable(trackers));
    if (deliveries.length > 0) parts.push(failedDeliveriesTable(deliveries));
    show(body, ...parts);
  } catch (error) {
    retryAll.disabled = true;
    show(body, h('p', { class: 'error-text' }, `Could not load the failed operations: ${errorText(error)}`));
  }
}

/** @param {any[]} trackers */
function failedTrackersTable(trackers) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'failed-table' },
      h('caption', {}, `Trackers (${trackers.length})`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Tracking number'),
          h('th', { scope: 'col' }, 'Order'),
          h('th', { scope: 'col' }, 'State'),
          h('th', { scope: 'col' }, 'Reason'),
          h('th', { scope: 'col', class: 'num' }, 'Attempts'),
          h('th', { scope: 'col' }, 'Last attempt'),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      h(
        'tbody',
        {},
        ...trackers.map((/** @type {any} */ t) =>
          h(
            'tr',
            { 'data-tracker': t.id },
            h(
              'th',
              { scope: 'row' },
              h('code', {}, t.trackingNumber),
              h('span', { class: 'muted' }, ` ${t.provider ?? ''}`),
            ),
            h('td', {}, t.orderName || '—'),
            h('td', {}, stateBadge(t.state)),
            h(
              'td',
              {},
              h(
                'strong',
                {},
                t.reason ? (REASONS[t.reason] ? `${REASONS[t.reason]}` : t.reason) : 'Unknown reason',
              ),
              t.reason ? h('span', { class: 'muted reason-code' }, ` [${t.reason}]`) : null,
              t.message ? h('div', { class: 'muted' }, t.message) : null,
            ),
            h('td', { class: 'num' }, formatNumber(t.attempts)),
            h('td', {}, timeElement(t.at)),
            h(
              'td',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'small',
                  'aria-label': `Retry ${t.trackingNumber}`,
                  onclick: (/** @type {Event} */ event) =>
                    void retry({ trackerIds: [t.id] }, /** @type {HTMLElement} */ (event.currentTarget)),
                },
                'Retry',
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

/** @param {any[]} deliveries */
function failedDeliveriesTable(deliveries) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'failed-table' },
      h('caption', {}, `Store notifications (${deliveries.length})`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Notification'),
          h('th', { scope: 'col' }, 'Reason'),
          h('th', { scope: 'col' }, 'Received'),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      h(
        'tbody',
        {},
        ...deliveries.map((/** @type {any} */ d) =>
          h(
            'tr',
            { 'data-delivery': d.id },
            h('th', { scope: 'row' }, d.topic ?? 'notification', h('span', { class: 'muted' }, ` ${d.id}`)),
            h(
              'td',
              {},
              h('strong', {}, d.reason ?? d.error ?? 'Unknown reason'),
              d.message ? h('div', { class: 'muted' }, d.message) : null,
            ),
            h('td', {}, timeElement(d.at ?? d.receivedAt)),
            h(
              'td',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'small',
                  'aria-label': `Retry notification ${d.id}`,
                  onclick: (/** @type {Event} */ event) =>
                    void retry({ deliveryIds: [d.id] }, /** @type {HTMLElement} */ (event.currentTarget)),
                },
                'Retry',
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

/** @param {{ trackerIds?: string[], deliveryIds?: string[] }} ids @param {HTMLElement} button */
async function retry(ids, button) {
  say('failed-status', 'Sending them round again…', 'busy');
  await busy(button, async () => {
    try {
      const answer = await api('POST', '/failed/retry', ids);
      const trackers = Number(answer?.retriedTrackers ?? 0);
      const deliveries = Number(answer?.retriedDeliveries ?? 0);
      /** @type {string[]} */
      const done = [];
      if (trackers) done.push(`${trackers} tracker${trackers === 1 ? '' : 's'}`);
      if (deliveries) done.push(`${deliveries} notification${deliveries === 1 ? '' : 's'}`);
      say(
        'failed-status',
        done.length
          ? `Retrying ${done.join(' and ')}.`
          : 'Nothing to retry: it may already have been sent again.',
        'success',
      );
    } catch (error) {
      say('failed-status', `Could not retry: ${errorText(error)}`, 'error');
    }
  });
  await Promise.all([loadFailed(), loadSummary(), loadShipments(), loadAttention()]);
  if (!button.isConnected) byId('failed-heading').parentElement?.querySelector('button')?.focus();
}

/* ------------------------------------------------------------------ start */

/* ------------------------------------------------------------------ 6. backfill */

let backfillTimer = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);

/** @param {any} job */
function renderBackfill(job) {
  const progress = /** @type {HTMLProgressElement} */ (byId('backfill-progress'));
  const section = byId('backfill');
  const start = /** @type {HTMLButtonElement} */ (byId('backfill-start'));
  if (!job) {
    section.dataset.state = 'none';
    progress.max = 1;
    progress.value = 0;
    progress.setAttribute('aria-valuetext', 'No backfill yet');
    say('backfill-status', 'No backfill has run for this store yet.');
    start.disabled = false;
    return;
  }
  section.dataset.state = String(job.state);
  const counts =
    `${formatNumber(job.pagesDone)} page(s) of orders read, ` +
    `${formatNumber(job.fulfillmentsSeen)} fulfilment(s) seen, ` +
    `${formatNumber(job.trackersWanted)} tracking number(s) wanted.`;
  if (job.state === 'running') {
    // No total is known while running: an indeterminate bar, the counts as text.
    progress.removeAttribute('value');
    progress.setAttribute('aria-valuetext', `Running: ${counts}`);
    say('backfill-status', `Running (last ${job.days} days): ${counts}`, 'busy');
    start.disabled = true;
  } else if (job.state === 'done') {
    progress.max = Math.max(1, Number(job.pagesDone) || 0);
    progress.value = progress.max;
    progress.setAttribute('aria-valuetext', `Done: ${counts}`);
    say('backfill-status', `Done (last ${job.days} days): ${counts}`, 'success');
    start.disabled = false;
  } else {
    progress.max = 1;
    progress.value = 0;
    progress.setAttribute('aria-valuetext', 'Failed');
    say(
      'backfill-status',
      `Failed: ${job.error ?? 'unknown reason'}. ${counts} Start again to resume where it stopped.`,
      'error',
    );
    start.disabled = false;
  }
}

let backfillWasRunning = false;

/** Reads the backfill's state; polls every 2 s while it runs, and shows its results when it ends. */
async function loadBackfill() {
  clearTimeout(backfillTimer);
  try {
    const answer = await api('GET', '/backfill');
    renderBackfill(answer?.job ?? null);
    const running = answer?.job?.state === 'running';
    if (running) backfillTimer = setTimeout(() => void loadBackfill(), 2000);
    else if (backfillWasRunning)
      void Promise.all([loadCarriers(), loadShipments(), loadSummary(), loadAttention()]);
    backfillWasRunning = running;
  } catch (error) {
    say('backfill-status', `Could not load the backfill: ${errorText(error)}`, 'error');
  }
}

/** @param {SubmitEvent} event */
async function startBackfill(event) {
  event.preventDefault();
  const field = input('backfill-days');
  const days = Number(field.value);
  if (!Number.isInteger(days) || days < 1 || days > 365) {
    field.setAttribute('aria-invalid', 'true');
    say('backfill-status', 'Days back must be a whole number from 1 to 365.', 'error');
    field.focus();
    return;
  }
  field.removeAttribute('aria-invalid');
  say('backfill-status', 'Starting…', 'busy');
  await busy(byId('backfill-start'), async () => {
    try {
      const answer = await api('POST', '/backfill', { days });
      renderBackfill(answer?.job ?? null);
    } catch (error) {
      say('backfill-status', `Not started: ${errorText(error)}`, 'error');
      return;
    }
  });
  await loadBackfill();
}

async function loadShop() {
  try {
    renderShop(await api('GET', '/shop'));
  } catch (error) {
    say('connection-status', `Could not load the store's settings: ${errorText(error)}`, 'error');
  }
}

function wire() {
  /** @type {HTMLFormElement} */ (byId('backfill-form')).addEventListener('submit', startBackfill);
  /** @type {HTMLFormElement} */ (byId('connection-form')).addEventListener('submit', saveConnection);
  /** @type {HTMLFormElement} */ (byId('settings-form')).addEventListener('submit', saveSettings);
  byId('shipments-search').addEventListener('submit', (event) => {
    event.preventDefault();
    shipmentsState.search = input('shipments-query').value.trim();
    shipmentsState.page = 1;
    void loadShipments();
  });
  byId('shipments-prev').addEventListener('click', () => {
    shipmentsState.page = Math.max(1, shipmentsState.page - 1);
    void loadShipments();
  });
  byId('shipments-next').addEventListener('click', () => {
    shipmentsState.page = Math.min(shipmentsState.pageCount, shipmentsState.page + 1);
    void loadShipments();
  });
  byId('attention-refresh').addEventListener('click', (event) => {
    void busy(/** @type {HTMLElement} */ (event.currentTarget), loadAttention);
  });
  byId('attention-prev').addEventListener('click', () => {
    attentionState.page = Math.max(1, attentionState.page - 1);
    void loadAttention();
  });
  byId('attention-next').addEventListener('click', () => {
    attentionState.page = Math.min(attentionState.pageCount, attentionState.page + 1);
    void loadAttention();
  });
  byId('timeline-close').addEventListener('click', closeTimeline);
  byId('timeline').addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closeTimeline();
  });
  byId('failed-refresh').addEventListener('click', (event) => {
    void busy(/** @type {HTMLElement} */ (event.currentTarget), loadFailed);
  });
  byId('failed-retry-all').addEventListener('click', (event) => {
    void retry({ ...failedIds }, /** @type {HTMLElement} */ (event.currentTarget));
  });
}

async function start() {
  wire();
  loadAppBridge();
  if (!launchToken && !appBridge()) {
    const banner = byId('page-error');
    banner.hidden = false;
    banner.textContent =
      'No session: open this page from your store admin (Apps → Tracksync) so it can identify your store.';
  }
  await Promise.all([
    loadShop(),
    loadCarriers(),
    loadShipments(),
    loadAttention(),
    loadSummary(),
    loadFailed(),
    loadBackfill(),
    searchCarriers(''),
  ]);
  document.body.dataset.ready = 'true';
}

/** Test hook: the page's module is loaded. */
/** @type {any} */ (window).tracksync = { ready: start() };
