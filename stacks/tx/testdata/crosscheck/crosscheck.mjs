// Cross-check helper for stacks/tx/crosscheck_test.go.
// Reads {"sign": [transfer inputs], "decode": [hex]} on stdin and writes JSON to stdout:
// the transfers signed by @stacks/transactions, and what it reads back from Go-signed bytes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { makeSTXTokenTransfer, deserializeTransaction, cvToString } from '@stacks/transactions';

const require = createRequire(import.meta.url);
const version = require('@stacks/transactions/package.json').version;
const input = JSON.parse(readFileSync(0, 'utf8'));

const signed = [];
for (const t of input.sign) {
  const tx = await makeSTXTokenTransfer({
    recipient: t.recipient,
    amount: BigInt(t.amount),
    senderKey: t.private_key,
    network: t.network,
    memo: t.memo,
    nonce: BigInt(t.nonce),
    fee: BigInt(t.fee),
  });
  signed.push({ hex: tx.serialize(), txid: tx.txid() });
}

const decoded = input.decode.map((hex) => {
  const tx = deserializeTransaction(hex);
  const cond = tx.auth.spendingCondition;
  let verified = '';
  try {
    tx.verifyOrigin();
    verified = 'ok';
  } catch (e) {
    verified = String(e.message || e);
  }
  return {
    txid: tx.txid(),
    reserialized: tx.serialize(),
    verified,
    signer: cond.signer,
    nonce: cond.nonce.toString(),
    fee: cond.fee.toString(),
    recipient: cvToString(tx.payload.recipient),
    amount: tx.payload.amount.toString(),
  };
});

process.stdout.write(JSON.stringify({ version, signed, decoded }));
