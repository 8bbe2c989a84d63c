// Package chaingen generates a synthetic Stacks chain the way a stacks-node posts it to its
// event observer: a /new_burn_block then a /new_block message per block, holding really
// signed STX transfers and contract calls with their events. The chain is deterministic for a
// given Options value, so benchmarks can cache what they build from it.
//
// Block 1 is a genesis block that mints STX to every account (the boot transaction carries the
// stx_mint_events, as on a real chain). Every later block has a coinbase and
// Options.TxsPerBlock STX transfers; block 2 deploys a contract whose function prints an event,
// and every block from 3 on calls it Options.ContractCallsPerBlock times. Account 0 is "busy": it takes part in Options.BusyShare of the
// transfers. Account 1 is "idle": its only history is its genesis mint. Fees are paid and
// never rewarded back (no matured_miner_rewards), so the sum of all balances is the amount
// minted minus the fees.
package chaingen

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // Stacks addresses are hash160 = RIPEMD-160(SHA-256)

	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// Event-observer paths of the generated messages.
const (
	PathNewBlock       = "/new_block"
	PathNewBurnBlock   = "/new_burn_block"
	PathNewMempoolTx   = "/new_mempool_tx"
	PathNewMicroblocks = "/new_microblocks"
)

// Genesis amounts and the range of transfer amounts and fees, in µSTX. A genesis balance is
// large enough for any account to pay every transfer and fee a long chain can ask of it.
const (
	MintAmount  = 10_000_000_000_000 // 10M STX
	maxTransfer = 1_000_000
	minFee      = 180
	maxFee      = 3_000
)

// ContractName is the name of the contract every contract call targets.
const ContractName = "counter"

// contractSource is deployed in block 2: bump adds its argument to a counter and prints the
// new value (one smart_contract_log per call).
const contractSource = `(define-data-var counter uint u0)
(define-public (bump (n uint))
  (begin
    (var-set counter (+ (var-get counter) n))
    (print (var-get counter))
    (ok true)))
`

// contractABI is the contract interface the node reports for contractSource.
const contractABI = `{"functions":[{"name":"bump","access":"public","args":[{"name":"n","type":"uint128"}],` +
	`"outputs":{"type":{"response":{"ok":"bool","error":"none"}}}}],` +
	`"variables":[{"name":"counter","type":"uint128","access":"variable"}],"maps":[],` +
	`"fungible_tokens":[],"non_fungible_tokens":[],"epoch":"Epoch25","clarity_version":"Clarity2"}`

// firstParentIndexBlockHash is the parent the node reports for the first Stacks block
// (stacks-core's FIRST_STACKS_BLOCK_HASH indexed with the first burnchain consensus hash).
const firstParentIndexBlockHash = "0x55c9861be5cff984a20ce6d99d4aa65941412889bdc665094136429b84f8c2ee"

// Options shape the generated chain. The zero value of a field takes the default given.
type Options struct {
	Seed        uint64
	Blocks      int     // anchor blocks after genesis (default 100)
	TxsPerBlock int     // STX transfers per block (default 10)
	Accounts    int     // accounts, at least 4 (default 100)
	BusyShare   float64 // share of transfers account 0 takes part in, 0..1
	// ContractCallsPerBlock is the number of calls per block of the printing contract.
	ContractCallsPerBlock int
	Mainnet               bool
	// ForkAt, when above 1, adds a competing block at that height (a coinbase of another
	// miner on the same parent) just before the canonical one; the next block builds on the
	// canonical one, so the competing block ends on a fork.
	ForkAt int
	// MempoolTxs is the number of STX transfers left pending after the last block, sent in
	// one /new_mempool_tx message.
	MempoolTxs int
	// MicroblockEvery, when above 0, has the miner stream a microblock of MicroblockTxs STX
	// transfers on top of every block whose height it divides (from height 3, not next to the
	// fork); the next block confirms it, and one on the last block stays unconfirmed.
	MicroblockEvery, MicroblockTxs int
}

func (o Options) withDefaults() (Options, error) {
	if o.Blocks == 0 {
		o.Blocks = 100
	}
	if o.TxsPerBlock == 0 {
		o.TxsPerBlock = 10
	}
	if o.Accounts == 0 {
		o.Accounts = 100
	}
	switch {
	case o.Blocks < 0 || o.TxsPerBlock < 0 || o.ContractCallsPerBlock < 0 || o.MempoolTxs < 0 ||
		o.MicroblockEvery < 0 || o.MicroblockTxs < 0:
		return o, errors.New("chaingen: negative block or transaction count")
	case o.Accounts < 4:
		return o, fmt.Errorf("chaingen: %d accounts, at least 4 are needed (busy, idle and two more)", o.Accounts)
	case o.ForkAt < 0 || o.ForkAt == 1 || o.ForkAt > o.Blocks+1:
		return o, fmt.Errorf("chaingen: fork at %d is not a block height after genesis", o.ForkAt)
	case o.BusyShare < 0 || o.BusyShare > 1:
		return o, fmt.Errorf("chaingen: busy share %v is not within 0..1", o.BusyShare)
	}
	return o, nil
}

// Key names the chain the options generate, for caching what is built from it.
func (o Options) Key() string {
	o, _ = o.withDefaults()
	key := fmt.Sprintf("s%d_b%d_t%d_a%d_busy%g_c%d_m%t", o.Seed, o.Blocks, o.TxsPerBlock, o.Accounts,
		o.BusyShare, o.ContractCallsPerBlock, o.Mainnet)
	if o.ForkAt > 0 || o.MempoolTxs > 0 || o.MicroblockEvery > 0 {
		key += fmt.Sprintf("_f%d_p%d_mb%d.%d", o.ForkAt, o.MempoolTxs, o.MicroblockEvery, o.MicroblockTxs)
	}
	return key
}

// Message is one event-observer message; ReceivedAt is the burn block's time, so that replays
// of the same chain are identical.
type Message struct {
	Path       string
	Payload    []byte
	ReceivedAt time.Time
}

// Account is a generated key pair and its address.
type Account struct {
	Key     *secp256k1.PrivateKey
	Address c32.Address
}

// Stats count what the generator has produced so far.
type Stats struct {
	Messages, Blocks, Txs, Transfers, ContractCalls, Events int64
	// ForkBlocks counts the competing blocks; MempoolTxs the transfers left pending (which
	// Txs and Transfers leave out, and Fees includes).
	ForkBlocks, MempoolTxs int64
	// Microblocks counts the streamed microblocks.
	Microblocks  int64
	Minted, Fees uint64
	// BusyTransfers counts the transfers the busy account took part in.
	BusyTransfers int64
}

// Generator produces the chain's messages one at a time.
type Generator struct {
	opts     Options
	rng      *rand.Rand
	accounts []Account
	miner    Account
	rival    Account // the miner of the competing block
	nonces   map[c32.Address]uint64
	counter  uint64 // the contract's counter, printed by each call
	height   int    // height of the last block generated
	pending  []Message
	mempool  bool        // the mempool message was sent
	stream   *microblock // the microblock the next block confirms
	parent   blockID
	stats    Stats
}

// New returns a generator of the chain opts describe.
func New(opts Options) (*Generator, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &Generator{opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, 0x5ac5)), nonces: map[c32.Address]uint64{}}
	for i := range opts.Accounts {
		g.accounts = append(g.accounts, g.account(fmt.Sprintf("account %d", i)))
	}
	g.miner = g.account("miner")
	g.rival = g.account("rival miner")
	g.parent.index = firstParentIndexBlockHash
	return g, nil
}

// account derives a key from the seed and a label.
func (g *Generator) account(label string) Account {
	var seed [8]byte
	binary.BigEndian.PutUint64(seed[:], g.opts.Seed)
	k := sha256.Sum256(append(seed[:], label...))
	key := secp256k1.PrivKeyFromBytes(k[:])
	return Account{Key: key, Address: addressOf(key.PubKey(), g.opts.Mainnet)}
}

// addressOf is the P2PKH address of a compressed public key. stacks/tx derives the same
// hash160 internally when it signs, but does not export it.
func addressOf(pub *secp256k1.PublicKey, mainnet bool) c32.Address {
	sha := sha256.Sum256(pub.SerializeCompressed())
	r := ripemd160.New()
	r.Write(sha[:])
	return c32.Address{Version: c32.VersionForHashMode(byte(tx.HashP2PKH), mainnet), Hash160: [20]byte(r.Sum(nil))}
}

// Options are the generator's options with defaults filled in.
func (g *Generator) Options() Options { return g.opts }

// Accounts are the generated accounts; Accounts()[0] is busy and Accounts()[1] idle.
func (g *Generator) Accounts() []Account { return g.accounts }

// Busy is the address of the busy account.
func (g *Generator) Busy() string { return g.accounts[0].Address.String() }

// Idle is the address of the idle account.
func (g *Generator) Idle() string { return g.accounts[1].Address.String() }

// Deployer is the account that deploys the contract (the last account).
func (g *Generator) Deployer() Account { return g.accounts[len(g.accounts)-1] }

// ContractID is the id of the contract the calls target.
func (g *Generator) ContractID() string { return g.Deployer().Address.String() + "." + ContractName }

// Stats counts what was generated so far.
func (g *Generator) Stats() Stats { return g.stats }

// Next returns the next message, or io.EOF after the last block.
func (g *Generator) Next() (Message, error) {
	if len(g.pending) > 0 {
		m := g.pending[0]
		g.pending = g.pending[1:]
		g.stats.Messages++
		return m, nil
	}
	if g.height > g.opts.Blocks { // genesis is block 1
		if g.opts.MempoolTxs > 0 && !g.mempool {
			g.mempool = true
			m, err := g.mempoolMessage()
			if err != nil {
				return Message{}, err
			}
			g.stats.Messages++
			return m, nil
		}
		return Message{}, io.EOF
	}
	g.height++
	if g.height == g.opts.ForkAt {
		rival, err := g.rivalBlock(g.height)
		if err != nil {
			return Message{}, err
		}
		g.pending = append(g.pending, rival)
	}
	burn, block, err := g.block(g.height)
	if err != nil {
		return Message{}, err
	}
	g.pending = append(g.pending, block)
	if e := g.opts.MicroblockEvery; e > 0 && g.height > 2 && g.height%e == 0 && g.height != g.opts.ForkAt-1 && g.height != g.opts.ForkAt {
		mb, err := g.microblock(g.height)
		if err != nil {
			return Message{}, err
		}
		g.pending = append(g.pending, mb)
	}
	g.stats.Messages++
	g.stats.Blocks++
	return burn, nil
}

// rivalBlock is a block at height on the same parent as the canonical one, in the same burn
// block, holding only its miner's coinbase.
func (g *Generator) rivalBlock(height int) (Message, error) {
	saved := g.parent
	var b blockTxs
	version, chainID := g.version()
	var data [32]byte
	binary.BigEndian.PutUint64(data[24:], uint64(height))
	fee := uint64(0)
	nonce := g.nonces[g.rival.Address]
	g.nonces[g.rival.Address] = nonce + 1
	b.add(&tx.Transaction{
		Version: version, ChainID: chainID, Auth: tx.AuthStandard,
		Origin:     tx.SpendingCondition{HashMode: tx.HashP2PKH, Nonce: nonce, Fee: fee},
		AnchorMode: tx.AnchorOnChainOnly, PostConditionMode: tx.PostConditionDeny, PostConditions: []tx.PostCondition{},
		Payload: &tx.Coinbase{Data: data},
	}, g.rival.Key, "")
	if err := sign(&b); err != nil {
		return Message{}, err
	}
	_, block, err := g.renderBlock(height, "rival ", &b)
	g.parent = saved
	if err != nil {
		return Message{}, err
	}
	g.stats.ForkBlocks++
	g.stats.Txs++
	return block, nil
}

// mempoolMessage is a /new_mempool_tx message of MempoolTxs signed transfers that no block
// holds, using the senders' next nonces.
func (g *Generator) mempoolMessage() (Message, error) {
	var b blockTxs
	for range g.opts.MempoolTxs {
		if err := g.transfer(&b, g.crowd(-1), 0); err != nil {
			return Message{}, err
		}
		g.stats.Transfers--
		g.stats.Txs--
		g.stats.MempoolTxs++
	}
	if err := sign(&b); err != nil {
		return Message{}, err
	}
	raw := make([]string, len(b.txs))
	for i, t := range b.txs {
		raw[i] = hex0x(t.Encode())
	}
	payload, err := json.Marshal(raw)
	if err != nil {
		return Message{}, err
	}
	at := time.Unix(genesisTime+int64(g.height)*blockInterval+blockInterval/2, 0).UTC()
	return Message{Path: PathNewMempoolTx, Payload: payload, ReceivedAt: at}, nil
}

// Each calls fn with every remaining message.
func (g *Generator) Each(fn func(Message) error) error {
	for {
		m, err := g.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(m); err != nil {
			return err
		}
	}
}

// blockTxs is a block's transactions and events while they are built.
type blockTxs struct {
	txs    []*tx.Transaction
	signer []*secp256k1.PrivateKey // nil for the unsigned boot transaction
	events [][]event               // per transaction, event_index still unset
	abi    []string                // contract interface per transaction, "" for none
}

func (b *blockTxs) add(t *tx.Transaction, key *secp256k1.PrivateKey, abi string, evs ...event) {
	b.txs = append(b.txs, t)
	b.signer = append(b.signer, key)
	b.abi = append(b.abi, abi)
	b.events = append(b.events, evs)
}

// block builds the burn block and the Stacks block at a height.
func (g *Generator) block(height int) (Message, Message, error) {
	var b blockTxs
	b.add(g.coinbase(height), g.miner.Key, "")
	switch height {
	case 1:
		g.genesisMints(&b)
	case 2:
		g.deploy(&b)
	}
	if height > 1 {
		if err := g.transfers(&b, g.opts.TxsPerBlock); err != nil {
			return Message{}, Message{}, err
		}
	}
	if height > 2 {
		if err := g.contractCalls(&b); err != nil {
			return Message{}, Message{}, err
		}
	}
	if err := sign(&b); err != nil {
		return Message{}, Message{}, err
	}
	return g.messages(height, &b)
}

// sign signs every transaction that has a signer, on all cores: signing dominates the
// generator's cost, and RFC 6979 signatures do not depend on the order.
func sign(b *blockTxs) error {
	var wg sync.WaitGroup
	errs := make([]error, len(b.txs))
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				if b.signer[i] != nil {
					errs[i] = b.txs[i].SignSingleSig(b.signer[i], true)
				}
			}
		})
	}
	for i := range b.txs {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

func (g *Generator) version() (byte, uint32) {
	if g.opts.Mainnet {
		return tx.VersionMainnet, tx.ChainIDMainnet
	}
	return tx.VersionTestnet, tx.ChainIDTestnet
}

// spend takes the account's next nonce for a transaction paying fee.
func (g *Generator) spend(from c32.Address, fee uint64) (nonce uint64) {
	nonce = g.nonces[from]
	g.nonces[from] = nonce + 1
	g.stats.Fees += fee
	g.stats.Txs++
	return nonce
}

// unsigned is a single-sig transaction of the account's next nonce, signed later by sign.
func (g *Generator) unsigned(from c32.Address, fee uint64, anchor tx.AnchorMode, p tx.Payload) *tx.Transaction {
	version, chainID := g.version()
	nonce := g.spend(from, fee)
	return &tx.Transaction{
		Version: version, ChainID: chainID, Auth: tx.AuthStandard,
		Origin:     tx.SpendingCondition{HashMode: tx.HashP2PKH, Nonce: nonce, Fee: fee},
		AnchorMode: anchor, PostConditionMode: tx.PostConditionDeny, PostConditions: []tx.PostCondition{},
		Payload: p,
	}
}

func (g *Generator) coinbase(height int) *tx.Transaction {
	var data [32]byte
	binary.BigEndian.PutUint64(data[24:], uint64(height))
	return g.unsigned(g.miner.Address, 0, tx.AnchorOnChainOnly, &tx.Coinbase{Data: data})
}

// genesisMints adds the boot transaction that carries the genesis mints: like the node's, it
// is an unsigned zero-amount transfer from the boot address to itself, with chain id 0.
func (g *Generator) genesisMints(b *blockTxs) {
	version, _ := g.version()
	boot := c32.Principal{Address: c32.Address{Version: c32.VersionForHashMode(byte(tx.HashP2PKH), g.opts.Mainnet)}}
	t := &tx.Transaction{
		Version: version, Auth: tx.AuthStandard,
		Origin:     tx.SpendingCondition{HashMode: tx.HashP2PKH, KeyEncoding: tx.KeyUncompressed},
		AnchorMode: tx.AnchorAny, PostConditionMode: tx.PostConditionDeny, PostConditions: []tx.PostCondition{},
		Payload: &tx.TokenTransfer{Recipient: boot},
	}
	var evs []event
	for _, a := range append(g.accounts, g.miner) {
		evs = append(evs, event{Type: "stx_mint_event", StxMintEvent: &stxEvent{
			Recipient: a.Address.String(), Amount: fmt.Sprint(MintAmount)}})
		g.stats.Minted += MintAmount
	}
	g.stats.Txs++
	b.add(t, nil, "", evs...)
}

func (g *Generator) deploy(b *blockTxs) {
	d := g.Deployer()
	p := &tx.SmartContract{Name: ContractName, Code: []byte(contractSource), ClarityVersion: 2}
	b.add(g.unsigned(d.Address, g.fee(), tx.AnchorAny, p), d.Key, contractABI)
}

func (g *Generator) fee() uint64 { return minFee + g.rng.Uint64N(maxFee-minFee) }

// crowd picks an account other than the busy and idle ones, and other than not.
func (g *Generator) crowd(not int) int {
	for {
		if i := 2 + g.rng.IntN(len(g.accounts)-2); i != not {
			return i
		}
	}
}

func (g *Generator) transfers(b *blockTxs, n int) error {
	for range n {
		from, to := g.crowd(-1), -1
		if g.rng.Float64() < g.opts.BusyShare {
			g.stats.BusyTransfers++
			if g.rng.IntN(2) == 0 {
				from = 0
			} else {
				to = 0
			}
		}
		if to < 0 {
			to = g.crowd(from)
		}
		if err := g.transfer(b, from, to); err != nil {
			return err
		}
	}
	return nil
}

func (g *Generator) transfer(b *blockTxs, from, to int) error {
	sender, recipient := g.accounts[from], g.accounts[to]
	amount := 1 + g.rng.Uint64N(maxTransfer)
	memo := fmt.Sprintf("chaingen %d", g.stats.Transfers)
	fee := g.fee()
	t, err := tx.NewTokenTransfer(tx.TransferOptions{
		Recipient: c32.Principal{Address: recipient.Address}, Amount: amount, Memo: memo,
		Nonce: g.spend(sender.Address, fee), Fee: fee, Mainnet: g.opts.Mainnet,
		AnchorMode: tx.AnchorAny, PostConditionMode: tx.PostConditionDeny,
	})
	if err != nil {
		return err
	}
	var memoBytes [tx.MemoLen]byte
	copy(memoBytes[:], memo)
	g.stats.Transfers++
	b.add(t, sender.Key, "", event{Type: "stx_transfer_event", StxTransferEvent: &stxEvent{
		Sender: sender.Address.String(), Recipient: recipient.Address.String(),
		Amount: fmt.Sprint(amount), Memo: fmt.Sprintf("%x", memoBytes),
	}})
	return nil
}

func (g *Generator) contractCalls(b *blockTxs) error {
	contract, err := c32.ParsePrincipal(g.ContractID())
	if err != nil {
		return err
	}
	for range g.opts.ContractCallsPerBlock {
		caller := g.accounts[g.crowd(-1)]
		n := 1 + g.rng.Uint64N(100)
		g.counter += n
		call := &tx.ContractCall{Contract: contract, FunctionName: "bump", Args: []clarity.Value{clarity.NewUInt64(n)}}
		g.stats.ContractCalls++
		b.add(g.unsigned(caller.Address, g.fee(), tx.AnchorAny, call), caller.Key, "", event{
			Type: "contract_event", ContractEvent: &contractEvent{
				ContractIdentifier: g.ContractID(), Topic: "print",
				Value:    map[string]uint64{"UInt": g.counter},
				RawValue: clarity.EncodeHex(clarity.NewUInt64(g.counter)),
			}})
	}
	return nil
}
