// Calls every legacy REST path of a running stxgraph with the reference API's client
// (@stacks/blockchain-api-client 8.13.6) and checks what such a client relies on.
// Usage: node contract.mjs <base url> (the mocknet fixture loaded).
import assert from 'node:assert/strict';
import { createClient } from '@stacks/blockchain-api-client';

const client = createClient({ baseUrl: process.argv[2] });
const funded = 'ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR';
const miner = 'ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH';
const coinbase = '0x8ba559335b84ed9bc57494e888ae53f0121a8ca7c91977ef84b122a1739c268d';

async function call(path, params, status = 200) {
  const { data, error, response } = await client.GET(path, { params });
  assert.equal(response.status, status, `${path}: ${response.status} ${JSON.stringify(error)}`);
  return data ?? error;
}

const balance = await call('/extended/v1/address/{principal}/stx', { path: { principal: funded } });
assert.equal(balance.balance, '10000000000000000');
assert.equal(typeof balance.lock_height, 'number');

const historical = await call('/extended/v1/address/{principal}/stx', { path: { principal: funded }, query: { until_block: '3' } });
assert.equal(historical.estimated_balance, undefined);

const bad = await call('/extended/v1/address/{principal}/stx', { path: { principal: 'ST000' } }, 400);
assert.equal(bad.statusCode, 400);

const twt = await call('/extended/v1/address/{principal}/transactions_with_transfers', { path: { principal: miner }, query: { limit: 2 } });
assert.equal(twt.limit, 2);
assert.equal(twt.results.length, 2);
assert.equal(typeof twt.results[0].tx.nonce, 'number');

const multiple = await call('/extended/v1/tx/multiple', { query: { tx_id: [coinbase, '0x' + '00'.repeat(32)] } });
assert.equal(multiple[coinbase].found, true);
assert.equal(multiple[coinbase].result.tx_type, 'coinbase');
assert.equal(multiple['0x' + '00'.repeat(32)].found, false);

const events = await call('/extended/v1/tx/events', { query: { address: funded, type: ['stx_asset'] } });
assert.ok(Array.isArray(events.events));

const logs = await call('/extended/v1/contract/{contract_id}/events', { path: { contract_id: 'ST000000000000000000002AMW42H.genesis' } });
assert.equal(logs.results[0].event_type, 'smart_contract_log');

const blocks = await call('/extended/v1/block', { query: { limit: 3 } });
assert.equal(blocks.results.length, 3);
assert.equal(blocks.total, blocks.results[0].height);

const block = await call('/extended/v1/block/by_burn_block_hash/{burn_block_hash}', { path: { burn_block_hash: blocks.results[0].burn_block_hash } });
assert.equal(block.hash, blocks.results[0].hash);

await call('/extended/v1/block/by_burn_block_hash/{burn_block_hash}', { path: { burn_block_hash: '0x' + '00'.repeat(32) } }, 404);
console.log('ok');
