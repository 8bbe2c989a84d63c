// The explorer pages: a small single-page application over stxgraph's own GraphQL API (queries
// over HTTP, live updates over graphql-ws on the same host). Paths under /explorer/ name the
// page; the server answers every one of them with the same shell.
import { createClient } from 'graphql-ws';
import { h, base, link, short, stx, when, badge, statusBadge, principalLink, table, kv, amount } from './dom.js';
import { balanceChart } from './chart.js';
import * as Q from './queries.js';

const main = document.getElementById('page');

// cleanups run when the page changes: they end the page's subscriptions.
let cleanups = [];

// gql runs a query; GraphQL errors are thrown with their messages.
async function gql(query, variables) {
  const resp = await fetch('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const out = await resp.json().catch(() => ({ errors: [{ message: `HTTP ${resp.status}` }] }));
  if (out.errors && out.errors.length) throw new Error(out.errors.map((e) => e.message).join('; '));
  return out.data;
}

let ws;
// subscribe runs a subscription over the page's one WebSocket until the page changes.
function subscribe(query, onData) {
  if (!ws) {
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql';
    ws = createClient({
      url,
      retryAttempts: Infinity,
      on: {
        connected: () => setLive(true),
        closed: () => setLive(false),
      },
    });
  }
  const stop = ws.subscribe({ query }, {
    next: (r) => r.data && onData(r.data),
    error: (e) => showError(e instanceof Error ? e : new Error('subscription failed')),
    complete: () => {},
  });
  cleanups.push(stop);
}

function setLive(on) {
  const el = document.getElementById('live');
  if (el) el.replaceChildren(on ? badge('live', 'ok') : badge('reconnecting…', 'warn'));
}

function showError(err) {
  main.prepend(h('div', { class: 'error' }, err.message));
}

// queryBox is the toggle that shows a page's GraphQL operations and opens them in GraphiQL.
function queryBox(ops) {
  return h('details', { class: 'query' },
    h('summary', null, 'GraphQL'),
    ops.map(({ query, variables }) => h('div', { class: 'op' },
      h('pre', null, query),
      variables ? h('pre', { class: 'vars' }, '# variables\n' + JSON.stringify(variables, null, 2)) : null,
      h('a', {
        href: '/graphiql?query=' + encodeURIComponent(query) + (variables ? '&variables=' + encodeURIComponent(JSON.stringify(variables)) : ''),
      }, 'Open in GraphiQL'))));
}

// pageHead is a page's title line with its query toggle.
function pageHead(title, sub, ops) {
  document.title = title + ' · stxgraph explorer';
  return h('div', { class: 'page-head' }, h('h1', null, title, sub ? h('span', { class: 'sub' }, sub) : null), queryBox(ops));
}

// setPage shows a page's parts (null parts are left out).
function setPage(...parts) {
  main.replaceChildren(...parts.filter((p) => p != null));
}

function section(title, ...children) {
  return h('section', { class: 'card' }, h('h2', null, title), ...children);
}

// ---- Home ----

function blockTr(b) {
  const tr = h('tr', { 'data-hash': b.hash, 'data-index-hash': b.indexBlockHash, class: b.canonical ? '' : 'orphaned' },
    h('td', null, link('/block/' + b.hash, '#' + b.height)),
    h('td', { class: 'mono' }, link('/block/' + b.hash, short(b.hash))),
    h('td', null, b.txCount),
    h('td', null, b.microblocks.length ? badge(b.microblocks.length + ' μblock' + (b.microblocks.length > 1 ? 's' : ''), 'info') : null,
      b.canonical ? null : badge('fork', 'warn')),
    h('td', { class: 'muted' }, when(b.blockTimeIso)));
  return tr;
}

function txSummary(t, keep = 8) {
  if (t.tokenTransfer) return [stx(t.tokenTransfer.amount), ' → ', principalLink(t.tokenTransfer.recipientAddress, keep)];
  if (t.contractCall) return [principalLink(t.contractCall.contractId, 4), ' ', h('code', null, t.contractCall.functionName)];
  if (t.smartContract) return ['deploy ', principalLink(t.smartContract.contractId, 4)];
  return t.txType.replaceAll('_', ' ');
}

function mempoolTr(t) {
  return h('tr', { 'data-txid': t.txId },
    h('td', { class: 'mono' }, link('/tx/' + t.txId, short(t.txId, 4))),
    h('td', null, principalLink(t.senderAddress, 4)),
    h('td', null, txSummary(t, 4)),
    h('td', null, stx(t.feeRate)));
}

async function home() {
  const data = await gql(Q.HOME);
  const tip = data.chainTip;
  const stat = (label, value, id) => h('div', { class: 'stat' }, h('div', { class: 'label' }, label), h('div', { class: 'value', id }, value));
  const blocks = h('tbody', { id: 'blocks' }, data.blocksConnection.nodes.map(blockTr));
  const mempool = h('tbody', { id: 'mempool' }, data.mempool.nodes.map(mempoolTr));
  const mempoolCount = h('span', { id: 'mempool-count' }, String(data.mempool.totalCount ?? ''));
  setPage(
    pageHead('Stacks chain', 'newest blocks and pending transactions, live', [{ query: Q.HOME }, { query: Q.LIVE_BLOCKS }, { query: Q.LIVE_MEMPOOL }]),
    h('div', { class: 'stats' },
      stat('Block height', h('span', { id: 'tip-height' }, link('/block/' + tip.blockHash, String(tip.blockHeight)))),
      stat('Burn block height', h('span', { id: 'tip-burn' }, String(tip.burnBlockHeight))),
      stat('Pending transactions', mempoolCount),
      stat('Updates', h('span', { id: 'live' }, badge('connecting…', 'muted')))),
    h('div', { class: 'grid' },
      section('Newest blocks', h('table', null,
        h('thead', null, h('tr', null, ['Height', 'Hash', 'Txs', '', 'Time'].map((c) => h('th', null, c)))), blocks)),
      section('Mempool', h('table', null,
        h('thead', null, h('tr', null, ['Transaction', 'Sender', 'What', 'Fee'].map((c) => h('th', null, c)))), mempool))));

  subscribe(Q.LIVE_BLOCKS, ({ blocks: item }) => {
    if (item.block) {
      const b = item.block;
      blocks.querySelector(`tr[data-hash="${b.hash}"]`)?.remove();
      const tr = blockTr(b);
      tr.classList.add('new');
      blocks.prepend(tr);
      while (blocks.children.length > 10) blocks.lastChild.remove();
      if (b.canonical) {
        document.getElementById('tip-height').replaceChildren(link('/block/' + b.hash, String(b.height)));
        document.getElementById('tip-burn').replaceChildren(String(b.burnBlockHeight));
      }
    }
    for (const r of item.reorg?.rolledBack || []) {
      const tr = blocks.querySelector(`tr[data-index-hash="${r.indexBlockHash}"]`);
      if (tr) {
        tr.classList.add('orphaned');
        tr.children[3].append(badge('fork', 'warn'));
      }
    }
  });
  subscribe(Q.LIVE_MEMPOOL, ({ mempoolTransactions: item }) => {
    const count = Number(mempoolCount.textContent) || 0;
    if (item.transaction) {
      const tr = mempoolTr(item.transaction);
      tr.classList.add('new');
      mempool.prepend(tr);
      while (mempool.children.length > 10) mempool.lastChild.remove();
      mempoolCount.textContent = String(count + 1);
    }
    if (item.droppedTxId) {
      mempool.querySelector(`tr[data-txid="${item.droppedTxId}"]`)?.remove();
      mempoolCount.textContent = String(Math.max(0, count - 1));
    }
  });
}

// ---- Block ----

async function blockPage(id) {
  const variables = /^\d+$/.test(id) ? { height: Number(id) } : { hash: id };
  const { block: b } = await gql(Q.BLOCK, variables);
  if (!b) return notFound('No block ' + id);
  const confirmed = b.microblocks;
  const txRows = b.transactions.nodes.map((t) => h('tr', null,
    h('td', null, t.txIndex),
    h('td', { class: 'mono' }, link('/tx/' + t.txId, short(t.txId))),
    h('td', null, t.txType.replaceAll('_', ' ')),
    h('td', null, txSummary(t)),
    h('td', null, principalLink(t.senderAddress)),
    h('td', null, stx(t.feeRate)),
    h('td', null, statusBadge(t.txStatus), t.microblockSequence >= 0 && t.microblockSequence < 2147483647 ? [' ', badge('μblock ' + t.microblockSequence, 'info')] : null)));
  setPage(
    pageHead('Block #' + b.height, b.canonical ? null : 'not on the canonical chain', [{ query: Q.BLOCK, variables }]),
    b.canonical ? null : h('div', { class: 'notice warn' }, 'This block is on a fork: another block at height ' + b.height + ' is canonical, and this one\'s transactions do not count.'),
    section('Overview', kv([
      ['Status', b.canonical ? badge('canonical', 'ok') : badge('fork (orphaned)', 'warn')],
      ['Hash', h('span', { class: 'mono' }, b.hash)],
      ['Index block hash', h('span', { class: 'mono' }, b.indexBlockHash)],
      ['Time', when(b.blockTimeIso)],
      ['Parent', b.parent ? link('/block/' + b.parent.hash, '#' + b.parent.height + ' ' + short(b.parent.hash)) : '—'],
      ['Burn block', '#' + b.burnBlockHeight + ' ' + short(b.burnBlockHash)],
      ['Tenure height', b.tenureHeight],
      ['Transactions', b.txCount],
      ['Miner transaction', link('/tx/' + b.minerTxid, short(b.minerTxid))],
      ['Execution cost', `runtime ${b.executionCost.runtime}, reads ${b.executionCost.readCount} (${b.executionCost.readLength} B), writes ${b.executionCost.writeCount} (${b.executionCost.writeLength} B)`],
    ])),
    confirmed.length || b.microblocksStreamed.length ? section('Microblocks',
      confirmed.length ? table(['Sequence', 'Hash', 'Transactions', ''], confirmed.map((m) => h('tr', null,
        h('td', null, m.sequence), h('td', { class: 'mono' }, short(m.hash)), h('td', null, m.transactions.length),
        h('td', null, m.microblockCanonical ? badge('confirmed by this block', 'info') : badge('orphaned', 'warn'))))) : null,
      b.microblocksStreamed.length ? [h('p', { class: 'muted' }, 'Streamed on top of this block (confirmed by its child):'),
        table(['Sequence', 'Hash', ''], b.microblocksStreamed.map((m) => h('tr', null, h('td', null, m.sequence),
          h('td', { class: 'mono' }, short(m.hash)), h('td', null, m.microblockCanonical ? badge('microblock', 'info') : badge('orphaned', 'warn')))))] : null) : null,
    section(`Transactions (${b.transactions.totalCount})`,
      table(['#', 'Transaction', 'Type', 'What', 'Sender', 'Fee', 'Status'], txRows, { id: 'block-txs' })));
}

// ---- Transaction ----

function eventRow(e) {
  let what;
  if (e.asset && e.asset.amount != null && !e.asset.assetId) what = [e.asset.assetEventType, ' ', stx(e.asset.amount)];
  else if (e.asset && e.asset.assetId) what = [e.asset.assetEventType, ' ', e.asset.amount ?? e.asset.value?.repr, ' ', h('code', null, e.asset.assetId)];
  else if (e.contractLog) what = [h('code', null, e.contractLog.topic), ' ', h('code', { class: 'repr' }, e.contractLog.value.repr)];
  else if (e.stxLockEvent) what = ['locked ', stx(e.stxLockEvent.lockedAmount), ' until burn height ', e.stxLockEvent.unlockHeight];
  const parties = e.asset ? [principalLink(e.asset.sender) , ' → ', principalLink(e.asset.recipient)]
    : e.contractLog ? principalLink(e.contractLog.contractId, 4) : e.stxLockEvent ? principalLink(e.stxLockEvent.lockedAddress) : null;
  return h('tr', null, h('td', null, e.eventIndex), h('td', null, e.eventType.replaceAll('_', ' ')), h('td', null, what), h('td', null, parties));
}

function postConditionText(pc) {
  const who = pc.principal.typeId === 'principal_origin' ? 'the sender'
    : pc.principal.contractName ? pc.principal.address + '.' + pc.principal.contractName : pc.principal.address;
  const asset = pc.asset ? pc.asset.contractAddress + '.' + pc.asset.contractName + '::' + pc.asset.assetName : 'STX';
  const amount = pc.type === 'stx' && pc.amount != null ? stx(pc.amount) : pc.amount ?? pc.assetValue?.repr ?? '';
  return `${who} ${pc.conditionCode.replaceAll('_', ' ')} ${amount} ${pc.type === 'stx' ? '' : asset}`.trim();
}

function payloadSection(t) {
  if (t.tokenTransfer) {
    return section('STX transfer', kv([['Recipient', principalLink(t.tokenTransfer.recipientAddress, 20)],
      ['Amount', stx(t.tokenTransfer.amount)], ['Memo', t.tokenTransfer.memo || '—']]));
  }
  if (t.contractCall) {
    return section('Contract call', kv([['Contract', principalLink(t.contractCall.contractId, 20)],
      ['Function', h('code', null, t.contractCall.functionName)],
      ...t.contractCall.functionArgs.map((a) => [a.name || a.type, h('code', { class: 'repr' }, a.repr)])]));
  }
  if (t.smartContract) {
    return section('Contract deployment', kv([['Contract', principalLink(t.smartContract.contractId, 20)], ['Clarity version', t.smartContract.clarityVersion]]));
  }
  if (t.coinbasePayload) return section('Coinbase', kv([['Data', h('span', { class: 'mono' }, t.coinbasePayload.data)]]));
  if (t.tenureChangePayload) return section('Tenure change', kv([['Cause', t.tenureChangePayload.cause]]));
  return null;
}

async function txPage(id) {
  const variables = { id };
  const [look] = (await gql(Q.TRANSACTION, variables)).transactionsByIds;
  if (!look.found) return notFound('No transaction ' + id);
  const t = look.result;
  const pending = t.__typename === 'MempoolTransaction';
  const inMicroblock = !pending && t.microblockSequence >= 0 && t.microblockSequence < 2147483647;
  let where;
  if (pending) where = ['in the mempool since ', when(t.receiptTimeIso)];
  else {
    where = [link('/block/' + t.blockHash, 'block #' + t.blockHeight), ', index ' + t.txIndex];
    if (inMicroblock) where.push(', microblock ', badge('#' + t.microblockSequence + ' ' + short(t.microblockHash), 'info'));
    if (t.isUnanchored) where.push(' ', badge('unconfirmed microblock', 'warn'));
    if (!t.canonical) where.push(' ', badge('fork: not canonical', 'warn'));
    if (!t.microblockCanonical) where.push(' ', badge('orphaned microblock', 'warn'));
  }
  setPage(
    pageHead('Transaction', t.txType.replaceAll('_', ' '), [{ query: Q.TRANSACTION, variables }]),
    section('Overview', kv([
      ['Id', h('span', { class: 'mono', id: 'txid' }, t.txId)],
      ['Status', statusBadge(t.txStatus)],
      ['Where', where],
      ['Time', pending ? null : when(t.blockTimeIso)],
      ['Sender', principalLink(t.senderAddress, 20)],
      ['Sponsor', t.sponsored ? principalLink(t.sponsorAddress, 20) : null],
      ['Nonce', t.nonce],
      ['Fee', stx(t.feeRate)],
      ['Anchor mode', t.anchorMode.replaceAll('_', ' ')],
      ['Result', pending ? null : h('code', { class: 'repr', id: 'tx-result' }, t.txResult.repr)],
      ['VM error', t.vmError],
      ['Replaced by', t.replacedByTxId ? link('/tx/' + t.replacedByTxId, short(t.replacedByTxId)) : null],
    ])),
    payloadSection(t),
    section(`Post-conditions (${t.postConditionMode})`, t.postConditions.length
      ? h('ul', { class: 'plain' }, t.postConditions.map((pc) => h('li', null, postConditionText(pc))))
      : h('p', { class: 'muted' }, 'None.')),
    pending ? null : section(`Events (${t.eventCount})`, t.events.length
      ? table(['#', 'Type', 'What', 'Parties'], t.events.map(eventRow), { id: 'tx-events' })
      : h('p', { class: 'muted' }, 'None.')));
}

// ---- Account ----

function transfersOf(t, principal) {
  return t.events.filter((e) => e.asset).map((e) => {
    const a = e.asset;
    const out = a.sender === principal;
    const amount = a.assetId ? (a.amount ?? a.value?.repr) + ' ' + a.assetId.split('::')[1] : stx(a.amount);
    return h('div', { class: 'transfer ' + (out ? 'out' : 'in') },
      out ? '−' : '+', amount, ' ', out ? ['to ', principalLink(a.recipient)] : ['from ', principalLink(a.sender)]);
  });
}

async function accountPage(principal) {
  const params = new URLSearchParams(location.search);
  const variables = { principal };
  if (params.get('before')) Object.assign(variables, { last: 10, before: params.get('before') });
  else Object.assign(variables, { first: 10, after: params.get('after') || null });
  const { account: a } = await gql(Q.ACCOUNT, variables);
  const bal = a.stxBalance;
  const locked = BigInt(bal.locked);
  const page = a.transactions;
  const pager = h('div', { class: 'pager' },
    page.pageInfo.hasPreviousPage ? link('/address/' + encodeURIComponent(principal) + '?before=' + encodeURIComponent(page.pageInfo.startCursor), '← Newer') : null,
    page.pageInfo.hasNextPage ? link('/address/' + encodeURIComponent(principal) + '?after=' + encodeURIComponent(page.pageInfo.endCursor), 'Older →') : null);
  setPage(
    pageHead(principal.includes('.') ? 'Contract' : 'Account', null, [{ query: Q.ACCOUNT, variables }]),
    h('p', { class: 'mono principal' }, a.principal),
    h('div', { class: 'stats' },
      h('div', { class: 'stat' }, h('div', { class: 'label' }, 'STX balance'), h('div', { class: 'value', id: 'balance' }, stx(bal.balance))),
      h('div', { class: 'stat' }, h('div', { class: 'label' }, 'Locked (PoX)'), h('div', { class: 'value' }, stx(bal.locked)),
        locked > 0n ? h('div', { class: 'muted' }, 'unlocks at burn height ' + bal.burnchainUnlockHeight) : null),
      h('div', { class: 'stat' }, h('div', { class: 'label' }, 'Available'), h('div', { class: 'value' }, stx((BigInt(bal.balance) - locked).toString()))),
      h('div', { class: 'stat' }, h('div', { class: 'label' }, 'Transactions'), h('div', { class: 'value' }, page.totalCount))),
    section('Balance over time', balanceChart(a.balanceHistory, stx),
      kv([['Received', stx(bal.totalReceived)], ['Sent', stx(bal.totalSent)], ['Fees', stx(bal.totalFeesSent)],
        ['Miner rewards', stx(bal.totalMinerRewardsReceived)], ['Next nonce', a.nonces.possibleNextNonce]])),
    section('Transactions',
      table(['Transaction', 'Block', 'Type', 'Transfers', 'Fee', 'Status'], page.nodes.map((t) => h('tr', null,
        h('td', { class: 'mono' }, link('/tx/' + t.txId, short(t.txId))),
        h('td', null, t.blockHeight ? link('/block/' + t.blockHeight, '#' + t.blockHeight) : '—'),
        h('td', null, t.txType.replaceAll('_', ' ')),
        h('td', null, transfersOf(t, principal)),
        h('td', null, t.senderAddress === principal ? stx(t.feeRate) : '—'),
        h('td', null, statusBadge(t.txStatus)))), { id: 'account-txs' }),
      pager));
}

// ---- BRC-20 ----

function share(minted, max) {
  const m = Number(minted), x = Number(max);
  return x > 0 ? Math.min(100, (100 * m) / x) : 0;
}

function bar(pct) {
  return h('div', { class: 'bar', title: pct.toFixed(2) + '%' }, h('div', { style: pct > 0 ? `width:max(${pct}%,3px)` : 'width:0' }));
}

async function brc20List() {
  const { brc20Tokens: list } = await gql(Q.BRC20_TOKENS);
  setPage(
    pageHead('BRC-20 tokens', list.totalCount + ' indexed', [{ query: Q.BRC20_TOKENS }]),
    section('Tokens', list.nodes.length
      ? table(['Ticker', 'Minted', '', 'Holders', 'Transactions', 'Deployed at'], list.nodes.map((t) => h('tr', null,
        h('td', null, link('/brc20/' + encodeURIComponent(t.ticker), t.displayTicker)),
        h('td', null, amount(t.mintedSupply) + ' / ' + amount(t.maxSupply)),
        h('td', null, bar(share(t.mintedSupply, t.maxSupply))),
        h('td', null, t.holderCount), h('td', null, t.txCount), h('td', null, 'burn block ' + t.blockHeight))))
      : h('p', { class: 'muted' }, 'No BRC-20 token is indexed yet: they come from an ordinals indexer posting inscriptions to the event observer.')));
}

async function brc20Page(ticker) {
  const variables = { ticker };
  const data = await gql(Q.BRC20_TOKEN, variables);
  const t = data.brc20Token;
  if (!t) return notFound('No BRC-20 token ' + ticker);
  const pct = share(t.mintedSupply, t.maxSupply);
  setPage(
    pageHead(t.displayTicker, 'BRC-20 token', [{ query: Q.BRC20_TOKEN, variables }]),
    h('div', { class: 'stats' },
      h('div', { class: 'stat' }, h('div', { class: 'label' }, 'Supply'), h('div', { class: 'value' }, amount(t.maxSupply))),
      h('div', { class: 'stat' }, h('div', { class: 'label' }, 'Minted'), h('div', { class: 'value', id: 'minted' }, pct.toFixed(2) + '%'), bar(pct)),
      h('div', { class: 'stat' }, h('div', { class: 'label' }, 'Holders'), h('div', { class: 'value' }, t.holderCount)),
      h('div', { class: 'stat' }, h('div', { class: 'label' }, 'Transactions'), h('div', { class: 'value' }, t.txCount))),
    section('Token', kv([
      ['Minted supply', amount(t.mintedSupply)], ['Mint limit', amount(t.mintLimit)], ['Decimals', t.decimals],
      ['Deployer', h('span', { class: 'mono' }, t.address)], ['Deployed', new Date(t.deployTimestamp).toLocaleString('en-GB') + ' (burn block ' + t.blockHeight + ')'],
      ['Inscription', h('span', { class: 'mono' }, '#' + t.number + ' ' + short(t.id, 10))], ['Self-mint', t.selfMint ? 'yes' : 'no'],
    ])),
    h('div', { class: 'grid' },
      section(`Holders (${t.holders.totalCount})`, table(['Address', 'Balance', 'Transferable'], t.holders.nodes.map((x) => h('tr', null,
        h('td', { class: 'mono' }, short(x.address, 10)), h('td', null, amount(x.overallBalance)), h('td', null, amount(x.transferrableBalance)))), { id: 'holders' })),
      section(`Activity (${data.brc20Activity.totalCount})`, table(['Operation', 'Amount', 'Address', 'Burn block'], data.brc20Activity.nodes.map((x) => h('tr', null,
        h('td', null, badge(x.operation.toLowerCase().replace('_', ' '), 'info')), h('td', null, x.amount == null ? '—' : amount(x.amount)),
        h('td', { class: 'mono' }, short(x.toAddress || x.address, 10)), h('td', null, x.blockHeight))), { id: 'activity' }))));
}

// ---- Search and routing ----

async function search(q) {
  q = q.trim();
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(q)) {
    const id = '0x' + q.replace(/^0x/, '').toLowerCase();
    const d = await gql(Q.SEARCH_HASH, { id });
    if (d.transactionsByIds[0].found) return go('/tx/' + id);
    if (d.block) return go('/block/' + id);
    return notFound('No transaction or block has the hash ' + id);
  }
  if (/^\d+$/.test(q)) return go('/block/' + q);
  if (/^S[0-9A-Z]{20,50}(\.[a-zA-Z][a-zA-Z0-9_-]*)?$/.test(q)) return go('/address/' + encodeURIComponent(q));
  if (q.length >= 1 && [...q].length <= 6 && !/\s/.test(q)) return go('/brc20/' + encodeURIComponent(q));
  return notFound('Search takes a transaction id, a block hash or height, an address or contract id, or a BRC-20 ticker.');
}

function notFound(message) {
  document.title = 'Not found · stxgraph explorer';
  main.replaceChildren(h('div', { class: 'card empty', id: 'not-found' }, h('h1', null, 'Nothing here'), h('p', null, message)));
}

const routes = [
  [/^\/?$/, home],
  [/^\/block\/([^/]+)$/, blockPage],
  [/^\/tx\/([^/]+)$/, txPage],
  [/^\/address\/([^/]+)$/, accountPage],
  [/^\/brc20\/?$/, brc20List],
  [/^\/brc20\/([^/]+)$/, brc20Page],
];

async function render() {
  for (const stop of cleanups) stop();
  cleanups = [];
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : location.pathname;
  for (const [re, page] of routes) {
    const m = path.match(re);
    if (!m) continue;
    document.body.dataset.page = page.name;
    main.replaceChildren(h('p', { class: 'muted loading' }, 'Loading…'));
    try {
      await page(...m.slice(1).map(decodeURIComponent));
    } catch (err) {
      main.replaceChildren(h('div', { class: 'error' }, err.message));
    }
    document.body.dataset.ready = path;
    return;
  }
  notFound('No explorer page at ' + location.pathname);
  document.body.dataset.ready = path;
}

function go(path) {
  history.pushState(null, '', base + path);
  window.scrollTo(0, 0);
  return render();
}

document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-nav]');
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  go(a.getAttribute('href').slice(base.length));
});
window.addEventListener('popstate', render);
// A search sent from the start page (or without a script) arrives as /explorer/?q=….
const sent = new URLSearchParams(location.search).get('q');
if (sent) {
  history.replaceState(null, '', base + '/');
  search(sent).catch((err) => main.replaceChildren(h('div', { class: 'error' }, err.message)));
} else {
  render();
}
document.getElementById('search').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = e.target.querySelector('input');
  search(input.value).catch((err) => main.replaceChildren(h('div', { class: 'error' }, err.message)));
});
