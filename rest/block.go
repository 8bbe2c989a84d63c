package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	genql "github.com/Khan/genqlient/graphql"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
)

// tipTag is the ETag of the routes that follow the chain tip, read alone.
func tipTag(ctx context.Context, c genql.Client) (string, error) {
	d, err := ChainTipTag(ctx, c)
	if err != nil {
		return "", err
	}
	return tipFieldsTag(&d.Tip), nil
}

// tipPathTag is tipTag as a route's pathTag.
func tipPathTag(ctx context.Context, c genql.Client, _ *http.Request) (string, error) {
	return tipTag(ctx, c)
}

// tipFields is the chain tip an operation selects for its ETag (each operation's generated
// type has these getters).
type tipFields interface {
	GetIndexBlockHash() string
	GetMicroblockHash() *string
}

func tipFieldsTag(t tipFields) string {
	return chainTipTag{IndexBlockHash: t.GetIndexBlockHash(), MicroblockHash: deref(t.GetMicroblockHash())}.etag()
}

// blocksRead is a read of GET /extended/v1/block.
type blocksRead struct{ limit, offset int }

func parseBlocks(r *http.Request) (read, error) {
	q := query(r.URL.Query())
	var p blocksRead
	var err error
	if p.limit, err = q.limit("limit", blockLimit, resolvers.MaxBlocksPage); err != nil {
		return nil, err
	}
	p.offset, err = q.offset("offset")
	return p, err
}

func (p blocksRead) etag(ctx context.Context, c genql.Client) (string, error) { return tipTag(ctx, c) }

// answer lists the blocks; the total is the tip height, as the reference's block count.
func (p blocksRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := Blocks(ctx, c, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	tag := chainTipTag{IndexBlockHash: d.Tip.IndexBlockHash, MicroblockHash: deref(d.Tip.MicroblockHash)}.etag()
	body, err := marshal(page[blockBody]{Limit: p.limit, Offset: p.offset, Total: &d.Tip.BlockHeight, Results: listedBlocks(d.Blocks)})
	return body, tag, err
}

// burnBlockRead is a read of GET /extended/v1/block/by_burn_block_hash/{hash}.
type burnBlockRead struct{ hash string }

func (p burnBlockRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p burnBlockRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := BlockByBurnBlockHash(ctx, c, p.hash)
	if err != nil {
		return nil, "", err
	}
	tag := tipFieldsTag(&d.Tip)
	if d.Block == nil {
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, "cannot find block by burn block hash")
	}
	b := *d.Block
	accepted := make([]string, len(b.MicroblockTxCounts))
	for i, mb := range b.MicroblockTxCounts {
		accepted[i] = mb.Hash
	}
	body, err := marshal(newBlockBody(b, accepted, b.StreamedMicroblockHashes, b.MicroblockTxCounts))
	return body, tag, err
}

// blockBody is the reference's block: its transaction ids as the GraphQL answer lists them,
// between the fields before and after them.
type blockBody struct {
	blockHead
	Txs answerJSON `json:"txs"`
	blockTail
}

type blockHead struct {
	Canonical                bool   `json:"canonical"`
	Height                   int    `json:"height"`
	Hash                     string `json:"hash"`
	BlockTime                int    `json:"block_time"`
	BlockTimeISO             string `json:"block_time_iso"`
	TenureHeight             int    `json:"tenure_height"`
	IndexBlockHash           string `json:"index_block_hash"`
	ParentBlockHash          string `json:"parent_block_hash"`
	BurnBlockTime            int    `json:"burn_block_time"`
	BurnBlockTimeISO         string `json:"burn_block_time_iso"`
	BurnBlockHash            string `json:"burn_block_hash"`
	BurnBlockHeight          int    `json:"burn_block_height"`
	MinerTxID                string `json:"miner_txid"`
	ExecutionCostReadCount   int    `json:"execution_cost_read_count"`
	ExecutionCostReadLength  int    `json:"execution_cost_read_length"`
	ExecutionCostRuntime     int    `json:"execution_cost_runtime"`
	ExecutionCostWriteCount  int    `json:"execution_cost_write_count"`
	ExecutionCostWriteLength int    `json:"execution_cost_write_length"`
}

type blockTail struct {
	ParentMicroblockHash     string         `json:"parent_microblock_hash"`
	ParentMicroblockSequence int            `json:"parent_microblock_sequence"`
	MicroblocksAccepted      []string       `json:"microblocks_accepted"`
	MicroblocksStreamed      []string       `json:"microblocks_streamed"`
	MicroblockTxCount        txCountsByHash `json:"microblock_tx_count"`
}

// appendJSON writes the block as encoding/json would, its transaction ids as they are.
func (b blockBody) appendJSON(dst []byte) ([]byte, error) {
	dst, err := appendJSON(dst, b.blockHead)
	if err != nil {
		return nil, err
	}
	dst = append(dst[:len(dst)-1], `,"txs":`...)
	if len(b.Txs) == 0 {
		dst = append(dst, "null"...) // as encoding/json writes an empty json.RawMessage
	}
	dst = append(append(dst, b.Txs...), ',')
	// The tail's object goes on in place of its opening brace.
	open := len(dst)
	if dst, err = encodeJSON(dst, b.blockTail); err != nil {
		return nil, err
	}
	return append(dst[:open], dst[open+1:]...), nil
}

// sizeHint is about the length of the block's JSON: its ids and some 1,500 bytes of fields.
func (b blockBody) sizeHint() int { return len(b.Txs) + 1536 }

const zeroBlockHash = "0x0000000000000000000000000000000000000000000000000000000000000000"

// newBlockBody renders b with its microblocks as given.
func newBlockBody(b BlockFields, accepted, streamed []string, counts txCountsByHash) blockBody {
	out := blockBody{blockHead: blockHead{
		Canonical: b.Canonical, Height: b.Height, Hash: b.Hash,
		BlockTime: b.BlockTime, BlockTimeISO: b.BlockTimeIso, TenureHeight: b.TenureHeight,
		IndexBlockHash: b.IndexBlockHash, ParentBlockHash: b.ParentBlockHash,
		BurnBlockTime: b.BurnBlockTime, BurnBlockTimeISO: b.BurnBlockTimeIso, BurnBlockHash: b.BurnBlockHash, BurnBlockHeight: b.BurnBlockHeight,
		MinerTxID:                b.MinerTxid,
		ExecutionCostReadCount:   b.ExecutionCost.ReadCount,
		ExecutionCostReadLength:  b.ExecutionCost.ReadLength,
		ExecutionCostRuntime:     b.ExecutionCost.Runtime,
		ExecutionCostWriteCount:  b.ExecutionCost.WriteCount,
		ExecutionCostWriteLength: b.ExecutionCost.WriteLength,
	}, Txs: b.TxIds, blockTail: blockTail{
		ParentMicroblockHash:     b.ParentMicroblockHash,
		ParentMicroblockSequence: b.ParentMicroblockSequence,
		MicroblocksAccepted:      accepted,
		MicroblocksStreamed:      streamed,
		MicroblockTxCount:        counts,
	}}
	// No parent microblock (the node's all-zero hash, or none) reads "" and -1, as in the reference.
	if out.ParentMicroblockHash == zeroBlockHash || out.ParentMicroblockHash == "0x" || out.ParentMicroblockHash == "" {
		out.ParentMicroblockHash, out.ParentMicroblockSequence = "", -1
	}
	return out
}

// txCountsByHash renders microblocks' transaction counts as an object keyed by hash, in order.
type txCountsByHash []BlockFieldsMicroblockTxCountsMicroblockTxCount

func (c txCountsByHash) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, mb := range c {
		if i > 0 {
			b = append(b, ',')
		}
		key, err := json.Marshal(mb.Hash)
		if err != nil {
			return nil, err
		}
		b = strconv.AppendInt(append(append(b, key...), ':'), int64(mb.TxCount), 10)
	}
	return append(b, '}'), nil
}

// listedBlocks renders a page of blocks (newest first) the way the reference's block list reads
// them, which differs from its single-block read: accepted microblocks and their counts come
// newest first, and a block's streamed microblocks are those its parent confirmed, known only
// when the parent is on the same page.
func listedBlocks(blocks []BlockFields) []blockBody {
	accepted := make([][]string, len(blocks))
	for i, b := range blocks {
		accepted[i] = make([]string, len(b.MicroblockTxCounts))
		for j, mb := range b.MicroblockTxCounts {
			accepted[i][len(accepted[i])-1-j] = mb.Hash
		}
	}
	out := make([]blockBody, len(blocks))
	for i, b := range blocks {
		counts := slices.Clone(b.MicroblockTxCounts)
		slices.Reverse(counts)
		streamed := []string{}
		if i+1 < len(blocks) && blocks[i+1].Hash == b.ParentBlockHash {
			streamed = accepted[i+1]
		}
		out[i] = newBlockBody(b, accepted[i], streamed, counts)
	}
	return out
}
