package chaingen

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"time"
)

// The JSON of the stacks-node event dispatcher (epoch 2.x nodes), field for field in its order.

type blockPayload struct {
	BlockHash                string        `json:"block_hash"`
	BlockHeight              int           `json:"block_height"`
	BurnBlockTime            int64         `json:"burn_block_time"`
	BurnBlockHash            string        `json:"burn_block_hash"`
	BurnBlockHeight          int           `json:"burn_block_height"`
	MinerTxid                string        `json:"miner_txid"`
	IndexBlockHash           string        `json:"index_block_hash"`
	ParentIndexBlockHash     string        `json:"parent_index_block_hash"`
	ParentBlockHash          string        `json:"parent_block_hash"`
	ParentMicroblock         string        `json:"parent_microblock"`
	ParentMicroblockSequence int           `json:"parent_microblock_sequence"`
	MaturedMinerRewards      []struct{}    `json:"matured_miner_rewards"`
	Events                   []event       `json:"events"`
	Transactions             []txPayload   `json:"transactions"`
	AnchoredCost             executionCost `json:"anchored_cost"`
	ConfirmedMicroblocksCost executionCost `json:"confirmed_microblocks_cost"`
	PoxV1UnlockHeight        int           `json:"pox_v1_unlock_height"`
	PoxV2UnlockHeight        int           `json:"pox_v2_unlock_height"`
	PoxV3UnlockHeight        int           `json:"pox_v3_unlock_height"`
	ParentBurnBlockHash      string        `json:"parent_burn_block_hash"`
	ParentBurnBlockHeight    int           `json:"parent_burn_block_height"`
	ParentBurnBlockTimestamp int64         `json:"parent_burn_block_timestamp"`
}

type txPayload struct {
	TxID                 string          `json:"txid"`
	RawTx                string          `json:"raw_tx"`
	Status               string          `json:"status"`
	RawResult            string          `json:"raw_result"`
	TxIndex              int             `json:"tx_index"`
	ContractABI          json.RawMessage `json:"contract_abi"`
	ExecutionCost        executionCost   `json:"execution_cost"`
	MicroblockSequence   *int            `json:"microblock_sequence"`
	MicroblockHash       *string         `json:"microblock_hash"`
	MicroblockParentHash *string         `json:"microblock_parent_hash"`
	VMError              *string         `json:"vm_error"`
	BurnchainOp          json.RawMessage `json:"burnchain_op"`
}

type executionCost struct {
	ReadCount   int64 `json:"read_count"`
	ReadLength  int64 `json:"read_length"`
	Runtime     int64 `json:"runtime"`
	WriteCount  int64 `json:"write_count"`
	WriteLength int64 `json:"write_length"`
}

func (c *executionCost) add(o executionCost) {
	c.ReadCount += o.ReadCount
	c.ReadLength += o.ReadLength
	c.Runtime += o.Runtime
	c.WriteCount += o.WriteCount
	c.WriteLength += o.WriteLength
}

type event struct {
	TxID             string         `json:"txid"`
	EventIndex       int            `json:"event_index"`
	Committed        bool           `json:"committed"`
	Type             string         `json:"type"`
	StxTransferEvent *stxEvent      `json:"stx_transfer_event,omitempty"`
	StxMintEvent     *stxEvent      `json:"stx_mint_event,omitempty"`
	ContractEvent    *contractEvent `json:"contract_event,omitempty"`
}

// stxEvent is an stx_transfer_event (sender, recipient, amount, memo) or an stx_mint_event
// (recipient, amount). The memo is hex without "0x", as the node writes it.
type stxEvent struct {
	Sender    string `json:"sender,omitempty"`
	Recipient string `json:"recipient"`
	Amount    string `json:"amount"`
	Memo      string `json:"memo,omitempty"`
}

// contractEvent is a print event: Value is the node's serde form of the Clarity value.
type contractEvent struct {
	ContractIdentifier string            `json:"contract_identifier"`
	Topic              string            `json:"topic"`
	Value              map[string]uint64 `json:"value"`
	RawValue           string            `json:"raw_value"`
}

type burnBlockPayload struct {
	BurnBlockHash       string     `json:"burn_block_hash"`
	BurnBlockHeight     int        `json:"burn_block_height"`
	RewardRecipients    []struct{} `json:"reward_recipients"`
	RewardSlotHolders   []string   `json:"reward_slot_holders"`
	BurnAmount          int64      `json:"burn_amount"`
	ConsensusHash       string     `json:"consensus_hash"`
	ParentBurnBlockHash string     `json:"parent_burn_block_hash"`
}

// Chain geometry: one burn block per Stacks block, ten minutes apart, and PoX unlock heights
// of an epoch 2.x testnet long in the past.
const (
	burnHeightOffset = 200
	genesisTime      = 1_700_000_000
	blockInterval    = 600
)

var (
	poxUnlockHeights = [3]int{104, 106, 109}
	zeroHash         = "0x" + hex.EncodeToString(make([]byte, 32))
	// callCost is what the node reports for a contract call of the counter contract.
	callCost   = executionCost{ReadCount: 5, ReadLength: 1261, Runtime: 17324, WriteCount: 1, WriteLength: 17}
	deployCost = executionCost{ReadCount: 3, WriteCount: 2, WriteLength: 712, Runtime: 9216}
)

// microblock is a streamed microblock as its confirming block reports it.
type microblock struct {
	hash   string
	txs    []txPayload
	events []event
	cost   executionCost
}

type microblocksPayload struct {
	ParentIndexBlockHash string      `json:"parent_index_block_hash"`
	BurnBlockHash        string      `json:"burn_block_hash"`
	BurnBlockHeight      int         `json:"burn_block_height"`
	BurnBlockTimestamp   int64       `json:"burn_block_timestamp"`
	Transactions         []txPayload `json:"transactions"`
	Events               []event     `json:"events"`
}

// microblockFields place a transaction in a microblock.
type microblockFields struct {
	seq          int
	hash, parent string
}

// renderTxs renders transactions from tx index first and their events from event index
// firstEvent, with their summed cost.
func renderTxs(b *blockTxs, first, firstEvent int, mb *microblockFields) ([]txPayload, []event, executionCost) {
	txs := make([]txPayload, len(b.txs))
	evs := []event{}
	var cost executionCost
	for i, t := range b.txs {
		txid := t.TxIDHex()
		tp := txPayload{TxID: txid, RawTx: hex0x(t.Encode()), Status: "success", RawResult: "0x0703", TxIndex: first + i,
			ContractABI: json.RawMessage("null"), BurnchainOp: json.RawMessage("null")}
		if mb != nil {
			tp.MicroblockSequence, tp.MicroblockHash, tp.MicroblockParentHash = &mb.seq, &mb.hash, &mb.parent
		}
		if b.abi[i] != "" {
			tp.ContractABI, tp.ExecutionCost = json.RawMessage(b.abi[i]), deployCost
		}
		for _, e := range b.events[i] {
			if e.ContractEvent != nil {
				tp.ExecutionCost = callCost
			}
			e.TxID, e.EventIndex, e.Committed = txid, firstEvent+len(evs), true
			evs = append(evs, e)
		}
		cost.add(tp.ExecutionCost)
		txs[i] = tp
	}
	return txs, evs, cost
}

// microblock streams a microblock of transfers on top of the block just generated at height;
// the next block confirms it.
func (g *Generator) microblock(height int) (Message, error) {
	var b blockTxs
	if err := g.transfers(&b, g.opts.MicroblockTxs); err != nil {
		return Message{}, err
	}
	if err := sign(&b); err != nil {
		return Message{}, err
	}
	fields := &microblockFields{seq: 0, hash: hex0x(g.derive("microblock", height)), parent: g.parent.hash}
	txs, evs, cost := renderTxs(&b, 0, 0, fields)
	payload, err := json.Marshal(microblocksPayload{
		ParentIndexBlockHash: g.parent.index, BurnBlockHash: g.parent.burnHash, BurnBlockHeight: g.parent.burnHeight,
		BurnBlockTimestamp: g.parent.burnTime, Transactions: txs, Events: evs,
	})
	if err != nil {
		return Message{}, err
	}
	g.stream = &microblock{hash: fields.hash, txs: txs, events: evs, cost: cost}
	g.stats.Microblocks++
	g.stats.Events += int64(len(evs))
	return Message{Path: PathNewMicroblocks, Payload: payload, ReceivedAt: time.Unix(g.parent.burnTime+blockInterval/2, 0).UTC()}, nil
}

// blockID is what a block's child needs of it.
type blockID struct {
	hash, index, burnHash string
	burnHeight            int
	burnTime              int64
}

// derive is a 32-byte hash of the seed, a label and a height: the generator's source of every
// hash that is not computed from content.
func (g *Generator) derive(label string, height int) []byte {
	b := binary.BigEndian.AppendUint64(nil, g.opts.Seed)
	b = binary.BigEndian.AppendUint64(append(b, label...), uint64(height))
	h := sha256.Sum256(b)
	return h[:]
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

// messages renders the burn block and the block at a height from its signed transactions.
func (g *Generator) messages(height int, b *blockTxs) (Message, Message, error) {
	return g.renderBlock(height, "", b)
}

// renderBlock renders a block whose own hash derives from fork+"block": the rival block of a
// fork shares its height, parent and burn block with the canonical one.
func (g *Generator) renderBlock(height int, fork string, b *blockTxs) (Message, Message, error) {
	blockHash := g.derive(fork+"block", height)
	consensus := g.derive("consensus", height)[:20]
	index := sha512.Sum512_256(append(append([]byte{}, blockHash...), consensus...))
	id := blockID{
		hash: hex0x(blockHash), index: hex0x(index[:]), burnHash: hex0x(g.derive("burn", height)),
		burnHeight: burnHeightOffset + height, burnTime: genesisTime + int64(height)*blockInterval,
	}
	parent := g.parent
	if height == 1 {
		parent.hash, parent.burnHash = zeroHash, zeroHash
	}
	burn, err := json.Marshal(burnBlockPayload{
		BurnBlockHash: id.burnHash, BurnBlockHeight: id.burnHeight, RewardRecipients: []struct{}{},
		RewardSlotHolders: []string{}, ConsensusHash: hex0x(consensus), ParentBurnBlockHash: parent.burnHash,
	})
	if err != nil {
		return Message{}, Message{}, err
	}
	p := blockPayload{
		BlockHash: id.hash, BlockHeight: height, BurnBlockTime: id.burnTime, BurnBlockHash: id.burnHash,
		BurnBlockHeight: id.burnHeight, MinerTxid: hex0x(g.derive(fork+"miner", height)), IndexBlockHash: id.index,
		ParentIndexBlockHash: parent.index, ParentBlockHash: parent.hash, ParentMicroblock: zeroHash,
		MaturedMinerRewards: []struct{}{}, Events: []event{}, Transactions: make([]txPayload, len(b.txs)),
		PoxV1UnlockHeight: poxUnlockHeights[0], PoxV2UnlockHeight: poxUnlockHeights[1], PoxV3UnlockHeight: poxUnlockHeights[2],
		ParentBurnBlockHash: parent.burnHash, ParentBurnBlockHeight: parent.burnHeight, ParentBurnBlockTimestamp: parent.burnTime,
	}
	if fork == "" && g.stream != nil { // the confirmed microblock's transactions come first
		mb := g.stream
		g.stream = nil
		p.ParentMicroblock = mb.hash
		p.Transactions = append(mb.txs, p.Transactions...)
		for _, e := range mb.events {
			e.EventIndex = len(p.Events)
			p.Events = append(p.Events, e)
		}
		p.ConfirmedMicroblocksCost = mb.cost
	}
	first := len(p.Transactions) - len(b.txs)
	txs, evs, cost := renderTxs(b, first, len(p.Events), nil)
	copy(p.Transactions[first:], txs)
	p.Events = append(p.Events, evs...)
	p.AnchoredCost = cost
	g.stats.Events += int64(len(evs))
	block, err := json.Marshal(p)
	if err != nil {
		return Message{}, Message{}, err
	}
	g.parent = id
	at := time.Unix(id.burnTime, 0).UTC()
	return Message{Path: PathNewBurnBlock, Payload: burn, ReceivedAt: at}, Message{Path: PathNewBlock, Payload: block, ReceivedAt: at}, nil
}
