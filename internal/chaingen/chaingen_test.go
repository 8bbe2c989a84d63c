package chaingen_test

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// The test reads the messages with its own view of the node's JSON, so that a field the
// generator misnames shows up as a missing value.
type nodeBlock struct {
	BlockHash            string    `json:"block_hash"`
	BlockHeight          int       `json:"block_height"`
	IndexBlockHash       string    `json:"index_block_hash"`
	ParentIndexBlockHash string    `json:"parent_index_block_hash"`
	ParentBlockHash      string    `json:"parent_block_hash"`
	BurnBlockHash        string    `json:"burn_block_hash"`
	BurnBlockHeight      int       `json:"burn_block_height"`
	ParentBurnBlockHash  string    `json:"parent_burn_block_hash"`
	Transactions         []nodeTx  `json:"transactions"`
	Events               []nodeEvt `json:"events"`
	MaturedMinerRewards  []any     `json:"matured_miner_rewards"`
}

type nodeTx struct {
	TxID      string          `json:"txid"`
	RawTx     string          `json:"raw_tx"`
	Status    string          `json:"status"`
	RawResult string          `json:"raw_result"`
	TxIndex   int             `json:"tx_index"`
	ABI       json.RawMessage `json:"contract_abi"`
}

type nodeEvt struct {
	TxID       string `json:"txid"`
	EventIndex int    `json:"event_index"`
	Committed  bool   `json:"committed"`
	Type       string `json:"type"`
	Transfer   *struct {
		Sender, Recipient, Amount, Memo string
	} `json:"stx_transfer_event"`
	Mint *struct {
		Recipient, Amount string
	} `json:"stx_mint_event"`
	Contract *struct {
		ContractIdentifier string `json:"contract_identifier"`
		Topic              string `json:"topic"`
		RawValue           string `json:"raw_value"`
	} `json:"contract_event"`
}

type nodeBurnBlock struct {
	BurnBlockHash   string `json:"burn_block_hash"`
	BurnBlockHeight int    `json:"burn_block_height"`
	ConsensusHash   string `json:"consensus_hash"`
}

var smallChain = chaingen.Options{Seed: 7, Blocks: 30, TxsPerBlock: 20, Accounts: 12, BusyShare: 0.3, ContractCallsPerBlock: 2}

func generate(t *testing.T, o chaingen.Options) (*chaingen.Generator, []chaingen.Message) {
	t.Helper()
	g, err := chaingen.New(o)
	if err != nil {
		t.Fatal(err)
	}
	var ms []chaingen.Message
	if err := g.Each(func(m chaingen.Message) error { ms = append(ms, m); return nil }); err != nil {
		t.Fatal(err)
	}
	return g, ms
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	_, a := generate(t, smallChain)
	_, b := generate(t, smallChain)
	other := smallChain
	other.Seed++
	_, c := generate(t, other)
	if len(a) != len(b) || len(a) != 2*(smallChain.Blocks+1) {
		t.Fatalf("got %d and %d messages, want %d", len(a), len(b), 2*(smallChain.Blocks+1))
	}
	for i := range a {
		if a[i].Path != b[i].Path || !bytes.Equal(a[i].Payload, b[i].Payload) || !a[i].ReceivedAt.Equal(b[i].ReceivedAt) {
			t.Fatalf("message %d differs between two runs with the same options", i)
		}
	}
	if bytes.Equal(a[3].Payload, c[3].Payload) {
		t.Fatal("another seed generated the same block")
	}
}

// ledger replays the chain's money movements.
type ledger struct {
	balance       map[string]*big.Int
	minted, fees  *big.Int
	nonce         map[string]uint64
	txsOf         map[string]int
	busyTransfers int
}

func (l *ledger) add(who string, amount *big.Int) {
	if l.balance[who] == nil {
		l.balance[who] = new(big.Int)
	}
	l.balance[who].Add(l.balance[who], amount)
}

// TestChainIsValid checks what a node would have produced: decodable, correctly signed
// transactions with their txids, consecutive nonces per sender, one matching event per transfer,
// linked blocks, and money that adds up.
func TestChainIsValid(t *testing.T) {
	t.Parallel()
	g, ms := generate(t, smallChain)
	l := verify(t, g, ms)

	// Money adds up: every balance is non-negative and they sum to what was minted minus fees.
	sum := new(big.Int)
	for who, v := range l.balance {
		if v.Sign() < 0 {
			t.Errorf("%s has a negative balance %s", who, v)
		}
		sum.Add(sum, v)
	}
	if want := new(big.Int).Sub(l.minted, l.fees); sum.Cmp(want) != 0 {
		t.Errorf("balances sum to %s, want minted %s - fees %s = %s", sum, l.minted, l.fees, want)
	}
	st := g.Stats()
	if st.Minted != l.minted.Uint64() || st.Fees != l.fees.Uint64() {
		t.Errorf("Stats minted %d fees %d, chain says %s and %s", st.Minted, st.Fees, l.minted, l.fees)
	}

	// The busy account is in about BusyShare of the transfers, the idle one in none.
	transfers := smallChain.Blocks * smallChain.TxsPerBlock
	if share := float64(l.busyTransfers) / float64(transfers); share < 0.2 || share > 0.4 || int64(l.busyTransfers) != st.BusyTransfers {
		t.Errorf("busy account in %d of %d transfers (Stats: %d), want about 30%%", l.busyTransfers, transfers, st.BusyTransfers)
	}
	if n := l.txsOf[g.Idle()]; n != 0 {
		t.Errorf("idle account took part in %d transactions", n)
	}
	if st.Transfers != int64(transfers) || st.ContractCalls != int64((smallChain.Blocks-1)*smallChain.ContractCallsPerBlock) {
		t.Errorf("Stats %+v: wrong transfer or contract-call count", st)
	}
}

// verify checks every message and returns the ledger of the chain's money movements.
func verify(t *testing.T, g *chaingen.Generator, ms []chaingen.Message) *ledger {
	t.Helper()
	l := &ledger{balance: map[string]*big.Int{}, minted: new(big.Int), fees: new(big.Int), nonce: map[string]uint64{}, txsOf: map[string]int{}}
	var burn nodeBurnBlock
	prevIndex, prevBurn := "0x55c9861be5cff984a20ce6d99d4aa65941412889bdc665094136429b84f8c2ee", "0x"+strings.Repeat("0", 64)
	for i, m := range ms {
		if m.Path == chaingen.PathNewBurnBlock {
			if i%2 != 0 {
				t.Fatalf("message %d: burn block out of place", i)
			}
			mustUnmarshal(t, m.Payload, &burn)
			continue
		}
		var b nodeBlock
		mustUnmarshal(t, m.Payload, &b)
		if b.BlockHeight != i/2+1 || b.ParentIndexBlockHash != prevIndex || b.ParentBurnBlockHash != prevBurn {
			t.Fatalf("block %d: height %d, parent %s/%s; want parent %s/%s", i/2+1, b.BlockHeight, b.ParentIndexBlockHash, b.ParentBurnBlockHash, prevIndex, prevBurn)
		}
		if b.BurnBlockHash != burn.BurnBlockHash || b.BurnBlockHeight != burn.BurnBlockHeight {
			t.Fatalf("block %d is not anchored in the burn block posted before it", b.BlockHeight)
		}
		if want := indexBlockHash(t, b.BlockHash, burn.ConsensusHash); b.IndexBlockHash != want {
			t.Fatalf("block %d: index_block_hash %s, want sha512/256(block_hash ‖ consensus_hash) = %s", b.BlockHeight, b.IndexBlockHash, want)
		}
		if b.MaturedMinerRewards == nil {
			t.Fatalf("block %d: matured_miner_rewards missing", b.BlockHeight)
		}
		checkBlock(t, g, &b, l)
		prevIndex, prevBurn = b.IndexBlockHash, b.BurnBlockHash
	}
	return l
}

func checkBlock(t *testing.T, g *chaingen.Generator, b *nodeBlock, l *ledger) {
	t.Helper()
	events := map[string][]nodeEvt{}
	for i, e := range b.Events {
		if e.EventIndex != i || !e.Committed {
			t.Fatalf("block %d event %d: event_index %d committed %v", b.BlockHeight, i, e.EventIndex, e.Committed)
		}
		events[e.TxID] = append(events[e.TxID], e)
	}
	for i, nt := range b.Transactions {
		d, err := tx.DecodeHex(nt.RawTx)
		if err != nil {
			t.Fatalf("block %d tx %d: %v", b.BlockHeight, i, err)
		}
		if d.TxIDHex() != nt.TxID || nt.TxIndex != i || nt.Status != "success" || nt.RawResult != "0x0703" {
			t.Fatalf("block %d tx %d: txid %s (computed %s), tx_index %d, status %s, result %s", b.BlockHeight, i, nt.TxID, d.TxIDHex(), nt.TxIndex, nt.Status, nt.RawResult)
		}
		if b.BlockHeight == 1 && i == 1 {
			checkBoot(t, d, events[nt.TxID], l)
			continue
		}
		if err := d.Verify(); err != nil {
			t.Fatalf("block %d tx %s: signature: %v", b.BlockHeight, nt.TxID, err)
		}
		sender := d.SenderAddress()
		if d.Nonce() != l.nonce[sender] {
			t.Fatalf("block %d tx %s: nonce %d, want %d for %s", b.BlockHeight, nt.TxID, d.Nonce(), l.nonce[sender], sender)
		}
		l.nonce[sender]++
		l.txsOf[sender]++
		fee := new(big.Int).SetUint64(d.FeeRate())
		l.fees.Add(l.fees, fee)
		l.add(sender, fee.Neg(fee))
		checkPayload(t, g, d, nt, events[nt.TxID], l)
	}
}

func checkPayload(t *testing.T, g *chaingen.Generator, d *tx.Transaction, nt nodeTx, evs []nodeEvt, l *ledger) {
	t.Helper()
	switch p := d.Payload.(type) {
	case *tx.Coinbase:
		if i := nt.TxIndex; i != 0 || len(evs) != 0 {
			t.Fatalf("coinbase %s at tx_index %d with %d events", nt.TxID, i, len(evs))
		}
	case *tx.TokenTransfer:
		if len(evs) != 1 || evs[0].Transfer == nil {
			t.Fatalf("transfer %s has events %+v, want one stx_transfer_event", nt.TxID, evs)
		}
		e := evs[0].Transfer
		if e.Sender != d.SenderAddress() || e.Recipient != p.Recipient.String() || e.Amount != new(big.Int).SetUint64(p.Amount).String() || e.Memo != hex.EncodeToString(p.Memo[:]) {
			t.Fatalf("transfer %s: event %+v does not match the transaction", nt.TxID, e)
		}
		if e.Sender == g.Busy() || e.Recipient == g.Busy() {
			l.busyTransfers++
		}
		l.txsOf[e.Recipient]++
		amount := new(big.Int).SetUint64(p.Amount)
		l.add(e.Recipient, amount)
		l.add(e.Sender, new(big.Int).Neg(amount))
	case *tx.SmartContract:
		if d.SenderAddress()+"."+p.Name != g.ContractID() || string(nt.ABI) == "null" || !json.Valid(nt.ABI) {
			t.Fatalf("deploy %s: contract %s.%s, abi %s", nt.TxID, d.SenderAddress(), p.Name, nt.ABI)
		}
	case *tx.ContractCall:
		if len(evs) != 1 || evs[0].Contract == nil || evs[0].Contract.ContractIdentifier != g.ContractID() || evs[0].Contract.Topic != "print" {
			t.Fatalf("contract call %s: events %+v, want one print event of %s", nt.TxID, evs, g.ContractID())
		}
		if _, err := clarity.DecodeHex(evs[0].Contract.RawValue); err != nil {
			t.Fatalf("contract call %s: print value: %v", nt.TxID, err)
		}
	default:
		t.Fatalf("unexpected payload %T in %s", p, nt.TxID)
	}
}

// checkBoot checks the genesis boot transaction: unsigned, from the boot address, carrying one
// mint per account.
func checkBoot(t *testing.T, d *tx.Transaction, evs []nodeEvt, l *ledger) {
	t.Helper()
	if d.SenderAddress() != "ST000000000000000000002AMW42H" || len(evs) != smallChain.Accounts+1 {
		t.Fatalf("boot tx from %s with %d events, want the boot address and %d mints", d.SenderAddress(), len(evs), smallChain.Accounts+1)
	}
	for _, e := range evs {
		if e.Mint == nil {
			t.Fatalf("boot tx event %+v is not a mint", e)
		}
		amount, ok := new(big.Int).SetString(e.Mint.Amount, 10)
		if !ok {
			t.Fatalf("mint amount %q", e.Mint.Amount)
		}
		l.minted.Add(l.minted, amount)
		l.add(e.Mint.Recipient, amount)
	}
}

// TestBootTxMatchesNode: the testnet boot transaction is byte for byte the one a real node
// posts (mocknet fixture, txid 0xcba5…4235).
func TestBootTxMatchesNode(t *testing.T) {
	t.Parallel()
	_, ms := generate(t, chaingen.Options{Blocks: 1, Accounts: 4})
	var b nodeBlock
	mustUnmarshal(t, ms[1].Payload, &b)
	if got := b.Transactions[1].TxID; got != "0xcba511741b230bd85cb5b3b10d26e0b92695d4a83f95c260cad82a40cd764235" {
		t.Errorf("boot txid %s differs from the node's", got)
	}
}

func TestAddresses(t *testing.T) {
	t.Parallel()
	for _, mainnet := range []bool{false, true} {
		g, err := chaingen.New(chaingen.Options{Accounts: 5, Mainnet: mainnet})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, a := range g.Accounts() {
			// Signing derives the signer from the key: it must be the account's address.
			tt, err := tx.NewTokenTransfer(tx.TransferOptions{Recipient: c32.Principal{Address: a.Address}, Amount: 1, Mainnet: mainnet})
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.SignSingleSig(a.Key, true); err != nil {
				t.Fatal(err)
			}
			if tt.SenderAddress() != a.Address.String() || a.Address.IsMainnet() != mainnet || seen[a.Address.String()] {
				t.Errorf("account %s: signer %s, mainnet %v, duplicate %v", a.Address, tt.SenderAddress(), mainnet, seen[a.Address.String()])
			}
			seen[a.Address.String()] = true
		}
	}
}

func TestOptionsRejected(t *testing.T) {
	t.Parallel()
	for _, o := range []chaingen.Options{
		{Accounts: 3},
		{BusyShare: 1.5},
		{BusyShare: -0.1},
		{Blocks: -1},
		{ContractCallsPerBlock: -2},
	} {
		if _, err := chaingen.New(o); err == nil {
			t.Errorf("New(%+v) accepted invalid options", o)
		}
	}
	if (chaingen.Options{}).Key() == (chaingen.Options{Seed: 1}).Key() {
		t.Error("Key ignores the seed")
	}
	if (chaingen.Options{}).Key() != (chaingen.Options{Blocks: 100}).Key() {
		t.Error("Key differs for options that generate the same chain")
	}
}

func indexBlockHash(t *testing.T, blockHash, consensusHash string) string {
	t.Helper()
	b, err1 := hex.DecodeString(strings.TrimPrefix(blockHash, "0x"))
	c, err2 := hex.DecodeString(strings.TrimPrefix(consensusHash, "0x"))
	if err1 != nil || err2 != nil || len(b) != 32 || len(c) != 20 {
		t.Fatalf("block hash %q / consensus hash %q", blockHash, consensusHash)
	}
	h := sha512.Sum512_256(append(b, c...))
	return "0x" + hex.EncodeToString(h[:])
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// A fork option adds a second block at that height on the same parent, and the mempool option
// ends the chain with one message of that many distinct pending transfers.
func TestForkAndMempool(t *testing.T) {
	t.Parallel()
	o := chaingen.Options{Seed: 4, Blocks: 6, TxsPerBlock: 2, Accounts: 5, ForkAt: 3, MempoolTxs: 4,
		MicroblockEvery: 5, MicroblockTxs: 2}
	g, ms := generate(t, o)
	type head struct {
		Height           int    `json:"block_height"`
		Hash             string `json:"block_hash"`
		Parent           string `json:"parent_index_block_hash"`
		ParentMicroblock string `json:"parent_microblock"`
		Transactions     []struct {
			TxID           string  `json:"txid"`
			MicroblockHash *string `json:"microblock_hash"`
		} `json:"transactions"`
	}
	var atFork []head
	var streamed head // the /new_microblocks message, read into the same shape
	for _, m := range ms {
		var h head
		switch m.Path {
		case chaingen.PathNewMicroblocks:
			mustUnmarshal(t, m.Payload, &streamed)
		case chaingen.PathNewBlock:
			mustUnmarshal(t, m.Payload, &h)
		}
		if h.Height == o.ForkAt {
			atFork = append(atFork, h)
		}
		if h.Height == o.MicroblockEvery+1 { // confirms the microblock streamed on the block before
			if len(streamed.Transactions) != o.MicroblockTxs || streamed.Transactions[0].MicroblockHash == nil ||
				h.ParentMicroblock != *streamed.Transactions[0].MicroblockHash {
				t.Fatalf("block %d confirms microblock %q; streamed %+v", h.Height, h.ParentMicroblock, streamed)
			}
			for i, tx := range streamed.Transactions {
				if h.Transactions[i].TxID != tx.TxID || h.Transactions[i].MicroblockHash == nil {
					t.Errorf("block %d transaction %d is %s, want the microblock's %s", h.Height, i, h.Transactions[i].TxID, tx.TxID)
				}
			}
		}
	}
	if g.Stats().Microblocks != 1 {
		t.Errorf("%d microblocks streamed, want 1", g.Stats().Microblocks)
	}
	if len(atFork) != 2 || atFork[0].Parent != atFork[1].Parent || atFork[0].Hash == atFork[1].Hash {
		t.Errorf("blocks at the fork height: %+v; want two distinct blocks on one parent", atFork)
	}
	last := ms[len(ms)-1]
	var pending []string
	if last.Path != chaingen.PathNewMempoolTx {
		t.Fatalf("last message %s, want %s", last.Path, chaingen.PathNewMempoolTx)
	}
	mustUnmarshal(t, last.Payload, &pending)
	seen := map[string]bool{}
	for _, raw := range pending {
		seen[raw] = true
	}
	if len(seen) != o.MempoolTxs || g.Stats().MempoolTxs != int64(o.MempoolTxs) || g.Stats().ForkBlocks != 1 {
		t.Errorf("%d distinct pending transactions, stats %+v; want %d and one fork block", len(seen), g.Stats(), o.MempoolTxs)
	}
}
