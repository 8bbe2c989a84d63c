// Small helpers to build the pages' elements and format the chain's values.

// h makes an element: attrs are properties or attributes (on* take listeners), children are
// nodes, strings, numbers, arrays of them, or null (skipped). Text is never parsed as HTML.
export function h(tag, attrs, ...children) {
  const el = tag.startsWith('svg:')
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

// base is where the explorer is served.
export const base = '/explorer';

// link is an in-page link to an explorer path (the router handles the click).
export function link(path, ...children) {
  return h('a', { href: base + path, 'data-nav': true }, ...children);
}

// short shortens a hash or id for a table cell, keeping both ends.
export function short(s, keep = 6) {
  if (!s || s.length <= 2 * keep + 3) return s || '';
  return s.slice(0, keep + (s.startsWith('0x') ? 2 : 0)) + '…' + s.slice(-keep);
}

// stx renders an amount of micro-STX (a decimal string) as STX, grouped by thousands.
export function stx(micro) {
  if (micro == null) return '—';
  const n = BigInt(micro);
  const neg = n < 0n;
  const a = neg ? -n : n;
  const whole = (a / 1000000n).toLocaleString('en-US');
  let frac = (a % 1000000n).toString().padStart(6, '0').replace(/0+$/, '');
  return (neg ? '−' : '') + whole + (frac ? '.' + frac : '') + ' STX';
}

// amount renders a decimal string grouped by thousands, without trailing fractional zeros.
export function amount(s) {
  const [whole, frac = ''] = String(s).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const f = frac.replace(/0+$/, '');
  return f ? grouped + '.' + f : grouped;
}

// when renders an ISO time as the browser's local date and time.
export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

// badge is a small coloured label; kind picks the colour (ok, warn, bad, info, muted).
export function badge(text, kind = 'muted') {
  return h('span', { class: 'badge ' + kind }, text);
}

// statusBadge shows a transaction status.
export function statusBadge(status) {
  const kind = status === 'success' ? 'ok' : status === 'pending' ? 'info' : status.startsWith('dropped') ? 'muted' : 'bad';
  return badge(status.replaceAll('_', ' '), kind);
}

// principalLink links an address or contract id to its account page.
export function principalLink(p, keep = 8) {
  if (!p) return '—';
  const [addr, name] = p.split('.');
  return link('/address/' + encodeURIComponent(p), name ? short(addr, keep) + '.' + name : short(addr, keep));
}

// table makes a table with a header row; rows are arrays of cells.
export function table(head, rows, attrs = {}) {
  return h('table', attrs,
    h('thead', null, h('tr', null, head.map((c) => h('th', null, c)))),
    h('tbody', null, rows));
}

// kv is a list of label and value pairs (null values are left out).
export function kv(pairs) {
  return h('dl', { class: 'kv' }, pairs.filter((p) => p && p[1] != null).map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}
