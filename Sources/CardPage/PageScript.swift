/// The card page's script: it follows the card's event stream and sends the page's actions as
/// control ops. Everything it shows is written as text (never as HTML), so a name a client
/// chose (an RP, a user) cannot inject anything into the page.
enum PageScript {
    static let javaScript = #"""
'use strict';
const secret = new URLSearchParams(location.search).get('t') || '';
const base = location.pathname.replace(/[^/]*$/, '');
const address = (resource) => base + resource + '?t=' + encodeURIComponent(secret);
const $ = (id) => document.getElementById(id);
const maxRows = 500;
let rows = [], held = [], skipped = 0, paused = false, tokenDeadline = null, cardState = null, seenCommands = new Set();

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = value; else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function toast(message, bad) {
  const box = $('toast');
  box.textContent = message;
  box.className = bad ? 'bad' : '';
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, bad ? 6000 : 2500);
}

async function op(request, done) {
  try {
    const answer = await fetch(address('op'), { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                                body: JSON.stringify(request) });
    const body = await answer.json();
    if (!body.ok) { toast(request.op + ': ' + body.error, true); return body; }
    if (done) toast(done);
    return body;
  } catch (error) {
    toast(request.op + ': ' + error, true);
    return { ok: false, error: String(error) };
  }
}

function facts(list, pairs) {
  list.replaceChildren(...pairs.flatMap(([name, value, id]) => [el('dt', {}, name), el('dd', { id: id, 'data-field': id }, value)]));
}

const yesNo = (flag) => flag ? 'yes' : 'no';
const when = (seconds) => seconds ? new Date(seconds * 1000).toLocaleString() : '—';

function renderState(state) {
  cardState = state;
  const details = state.details || {};
  if (!details.ok) { facts($('card-facts'), [['error', details.error || 'no card details']]); return; }
  const status = details.status, info = details.info, pin = status.pin;
  const reader = status.onReader === false ? 'off the reader' : status.inField ? 'in the field' : 'out of the field';
  $('reader').textContent = reader;
  $('reader').className = 'badge ' + (status.onReader === false || !status.inField ? 'off' : 'live');
  facts($('card-facts'), [
    ['profile', status.profile, 'profile'], ['AAGUID', info.aaguid, 'aaguid'], ['versions', info.versions.join(', '), 'versions'],
    ['extensions', info.extensions.join(', ') || '—', 'extensions'],
    ['options', info.options.map((option) => option.name + (option.value ? '' : '=false')).join(' '), 'options'],
    ['signature counter', status.counter, 'counter'], ['timing', status.timing, 'timing'],
    ['room for', info.remainingDiscoverableCredentials + ' more discoverable credentials', 'remaining'],
    ['image', details.image ? details.image.path : 'in memory', 'image'],
    ['last written', details.image ? when(details.image.lastWritten) : '—', 'last-written'],
  ]);
  facts($('pin-facts'), [
    ['set', yesNo(pin.isSet), 'pin-set'], ['retries left', pin.retries, 'pin-retries'], ['blocked', yesNo(pin.blocked), 'pin-blocked'],
    ['blocked until power cycle', yesNo(pin.blockedUntilPowerCycle), 'pin-power-blocked'],
    ['forcePINChange', yesNo(info.forcePINChange), 'pin-force-change'], ['min length', info.minPINLength, 'pin-min-length'],
  ]);
  $('pin-clear').disabled = !pin.isSet;
  renderToken(details.token);
  renderCredentials(details.credentials, status.counter);
  renderFaults(details.faults, details.faultLog);
  renderPresence(state.presence);
}

function renderToken(token) {
  const box = $('token');
  if (!token) { tokenDeadline = null; box.replaceChildren(el('span', { class: 'empty' }, 'none in use')); return; }
  tokenDeadline = Date.now() + token.expiresInSeconds * 1000;
  const dl = el('dl');
  facts(dl, [['permissions', token.permissions.join(' ') || '—', 'token-permissions'], ['RP', token.rpId || 'any', 'token-rp'],
             ['user present', yesNo(token.userPresent)], ['user verified', yesNo(token.userVerified)],
             ['expires in', '', 'token-expires']]);
  box.replaceChildren(dl);
  tick();
}

function tick() {
  const cell = $('token-expires');
  if (cell && tokenDeadline) cell.textContent = Math.max(0, Math.round((tokenDeadline - Date.now()) / 1000)) + ' s';
}
setInterval(tick, 1000);

function renderCredentials(credentials, counter) {
  $('credential-count').textContent = credentials.length;
  const box = $('credentials');
  if (!credentials.length) { box.replaceChildren(el('p', { class: 'empty' }, 'No discoverable credentials.')); return; }
  const byRP = new Map();
  for (const credential of credentials) {
    if (!byRP.has(credential.rpId)) byRP.set(credential.rpId, []);
    byRP.get(credential.rpId).push(credential);
  }
  const parts = [];
  for (const [rpId, list] of byRP) {
    parts.push(el('div', { class: 'rp' }, rpId, list[0].rpName ? el('small', {}, ' · ' + list[0].rpName) : null));
    const head = el('tr', {}, ['user', 'algorithm', 'credProtect', 'large blob', 'created', 'sign count', ''].map((name) => el('th', {}, name)));
    const body = list.map((credential) => el('tr', { class: 'credential', 'data-rp': rpId, 'data-id': credential.id },
      el('td', { 'data-field': 'user' }, credential.userName || '(no name)',
         credential.userDisplayName ? el('small', { class: 'note' }, ' ' + credential.userDisplayName) : null),
      el('td', { 'data-field': 'algorithm' }, credential.algorithmName),
      el('td', { 'data-field': 'credProtect' }, credential.credProtect),
      el('td', { 'data-field': 'largeBlob' }, yesNo(credential.largeBlob)),
      el('td', { 'data-field': 'created' }, '#' + credential.created),
      el('td', { 'data-field': 'signCount' }, counter),
      el('td', {}, el('button', { type: 'button', class: 'danger', onclick: () => op({ op: 'credentials.remove', id: credential.id }, 'credential removed') }, 'Remove'))));
    parts.push(el('table', {}, el('thead', {}, head), el('tbody', {}, body)));
  }
  box.replaceChildren(...parts);
}

function renderFaults(faults, log) {
  $('faults').replaceChildren(...(faults.length ? faults.map((fault) => el('li', { class: 'fault', 'data-id': fault.id },
    fault.description + (fault.hits ? ' — acted ' + fault.hits + '×' : ''), ' ',
    el('button', { type: 'button', onclick: () => op({ op: 'fault.remove', id: fault.id }, 'fault disarmed') }, 'Disarm')))
    : [el('li', { class: 'empty' }, 'none armed')]));
  $('fault-log').replaceChildren(...log.slice(-5).reverse().map((entry) => el('li', {}, entry.description)));
}

const presenceNotes = {
  approve: 'Every test of user presence is approved at once, as a card held in the field is.',
  decline: 'Every test of user presence is declined: the request fails with CTAP2_ERR_OPERATION_DENIED.',
  ask: 'Each test of user presence waits here for your answer (30 s at most, then CTAP2_ERR_USER_ACTION_TIMEOUT).',
};

function renderPresence(presence) {
  $('presence-unavailable').hidden = !!presence;
  for (const input of document.querySelectorAll('input[name=presence]')) {
    input.disabled = !presence;
    input.checked = !!presence && input.value === presence.mode;
  }
  $('presence-note').textContent = presence ? presenceNotes[presence.mode] || '' : '';
  const pending = presence && presence.pending;
  const prompt = $('presence-prompt');
  prompt.hidden = !pending;
  if (!pending) { delete prompt.dataset.id; return; }
  prompt.dataset.id = pending.id;
  $('presence-question').textContent = pending.command + (pending.rpId ? ' for ' + pending.rpId : '') + ' is waiting for you';
  $('presence-waiting').textContent = 'waiting ' + Math.floor(pending.waitingSeconds) + ' s';
}

async function presenceOp(request, done) {
  const answer = await op(request, done);
  if (answer.presence) renderPresence(answer.presence);
  else if (cardState) renderPresence(cardState.presence);
}

function rowMatches(row) {
  const filter = $('trace-filter').value.trim().toLowerCase();
  return !filter || row.command.toLowerCase().includes(filter);
}

function rowElement(row) {
  const time = new Date(row.time * 1000).toLocaleTimeString([], { hour12: false }) + '.' + String(Math.floor(row.time * 1000) % 1000).padStart(3, '0');
  const summary = row.request || row.response || '';
  const details = [];
  if (row.request) details.push(el('div', {}, 'request'), el('pre', { class: 'request' }, row.request));
  if (row.response) details.push(el('div', {}, row.kind === 'reader' ? 'detail' : 'response'), el('pre', { class: 'response' }, row.response));
  if (row.apdus.length) details.push(el('div', {}, 'APDUs'), el('pre', { class: 'apdus' }, row.apdus.join('\n')));
  const node = el('div', { class: 'row ' + (row.kind === 'reader' ? 'reader' : ''), 'data-command': row.command, 'data-kind': row.kind,
                           'data-id': row.id, 'data-status': row.status },
    el('div', { class: 'head' }, el('span', { class: 'time' }, time), el('span', { class: 'command' }, row.command),
       el('span', { class: 'status ' + (row.ok ? 'ok' : 'bad') }, row.status),
       el('span', { class: 'duration' }, row.kind === 'reader' ? '' : row.durationMs.toFixed(1) + ' ms')),
    el('div', { class: 'summary' }, summary), el('div', { class: 'details' }, details));
  node.hidden = !rowMatches(row);
  node.addEventListener('click', (event) => { if (!window.getSelection().toString()) node.classList.toggle('open'); });
  return node;
}

function addRows(list) {
  const trace = $('trace');
  for (const row of list) {
    rows.push(row);
    trace.prepend(rowElement(row));
    if (!seenCommands.has(row.command)) { seenCommands.add(row.command); $('trace-commands').append(el('option', { value: row.command })); }
  }
  while (rows.length > maxRows) { rows.shift(); trace.lastElementChild && trace.lastElementChild.remove(); }
  $('trace-count').textContent = rows.length;
}

function connect() {
  const events = new EventSource(address('events'));
  events.addEventListener('open', () => { $('connection').textContent = 'live'; $('connection').className = 'badge live'; });
  events.addEventListener('error', () => { $('connection').textContent = 'reconnecting…'; $('connection').className = 'badge off'; });
  events.addEventListener('hello', (event) => {
    const hello = JSON.parse(event.data);
    const select = $('card-select');
    const current = hello.cards.find((card) => card.index === hello.card);
    $('card-name').textContent = current ? '· ' + current.name : '';
    select.hidden = hello.cards.length < 2;
    select.replaceChildren(...hello.cards.map((card) => el('option', { value: card.index, selected: card.index === hello.card }, card.index + ': ' + card.name)));
    rows = []; $('trace').replaceChildren();
  });
  events.addEventListener('state', (event) => renderState(JSON.parse(event.data)));
  events.addEventListener('trace', (event) => {
    const row = JSON.parse(event.data);
    if (paused) { held.push(row); $('trace-pause').textContent = 'Resume (' + held.length + ')'; } else addRows([row]);
  });
  events.addEventListener('dropped', (event) => {
    const dropped = JSON.parse(event.data);
    skipped += dropped.rows + dropped.events;
    $('trace-skipped').textContent = skipped + ' not shown (too many a second)';
    $('trace-skipped').hidden = false;
  });
}

$('card-select').addEventListener('change', (event) => {
  const index = Number(event.target.value);
  location.href = (index === 1 ? '/' : '/card/' + index + '/') + '?t=' + encodeURIComponent(secret);
});
$('tap').addEventListener('click', () => op({ op: 'tap' }, 'tapped: the card is back in a second'));
$('remove').addEventListener('click', () => op({ op: 'remove' }, 'the card is off the reader'));
$('insert').addEventListener('click', () => op({ op: 'insert' }, 'the card is on the reader'));
$('transcript').href = address('transcript');
$('pin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const pin = $('pin-new').value;
  $('pin-new').value = '';
  if (pin) await op({ op: 'pin', set: pin }, 'PIN set');
});
$('pin-clear').addEventListener('click', () => op({ op: 'pin', clear: true }, 'PIN cleared'));
for (const input of document.querySelectorAll('input[name=presence]')) {
  input.addEventListener('change', () => presenceOp({ op: 'presence', mode: input.value }, 'user presence: ' + input.value));
}
for (const [id, approve] of [['presence-approve', true], ['presence-decline', false]]) {
  $(id).addEventListener('click', () => presenceOp({ op: 'presence.answer', id: Number($('presence-prompt').dataset.id), approve: approve },
                                                   approve ? 'approved' : 'declined'));
}
$('credential-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const userId = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
  const credential = { rpId: $('credential-rp').value.trim(), algorithm: Number($('credential-algorithm').value), userIdHex: userId };
  if ($('credential-user').value.trim()) credential.userName = $('credential-user').value.trim();
  const answer = await op({ op: 'credentials.add', credential: credential }, 'credential added');
  if (answer.ok) $('credential-form').reset();
});
const parameterNames = { 'ctap-error': 'ctapError', 'status-word': 'statusWord', 'leave-field': 'away', 'delay': 'delay' };
const parameterHints = { 'ctap-error': 'OPERATION_DENIED', 'status-word': '6A82', 'leave-field': 'seconds away (1)', 'delay': 'seconds (0.5)' };
$('fault-effect').addEventListener('change', () => {
  const effect = $('fault-effect').value;
  $('fault-parameter').hidden = !(effect in parameterNames);
  $('fault-parameter').placeholder = parameterHints[effect] || '';
});
$('fault-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const effect = $('fault-effect').value;
  const fault = { effect: effect, command: $('fault-command').value.trim() || 'any', once: $('fault-once').checked };
  const parameter = $('fault-parameter').value.trim();
  if (effect in parameterNames && parameter) {
    fault[parameterNames[effect]] = ['away', 'delay'].includes(parameterNames[effect]) ? Number(parameter) : parameter;
  }
  if (effect === 'flags') { fault.up = false; fault.uv = false; }
  await op({ op: 'fault.add', fault: fault }, 'fault armed');
});
$('trace-filter').addEventListener('input', () => {
  const nodes = $('trace').children;
  for (let index = 0; index < nodes.length; index++) {
    const row = rows[rows.length - 1 - index];
    if (row) nodes[index].hidden = !rowMatches(row);
  }
});
$('trace-pause').addEventListener('click', () => {
  paused = !paused;
  $('trace-pause').textContent = paused ? 'Resume' : 'Pause';
  if (!paused) { addRows(held); held = []; }
});
$('trace-clear').addEventListener('click', () => { rows = []; held = []; $('trace').replaceChildren(); $('trace-count').textContent = 0; });
connect();
"""#
}
