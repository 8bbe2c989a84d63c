package rest

import (
	"context"
	"net/http"
	"strconv"

	genql "github.com/Khan/genqlient/graphql"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
)

// v2BlockTxsRead is a read of GET /extended/v2/blocks/{height_or_hash}/transactions: the block
// latest, at a height or by hash, and a page of its transactions.
type v2BlockTxsRead struct {
	latest        bool
	height        *int
	hash          *string
	limit, offset int
}

func v2BlockTxsParams(r *http.Request) (read, error) {
	vars, err := blockPageParams(txLimit, resolvers.MaxAccountTxsPage)(r)
	if err != nil {
		return nil, err
	}
	p := v2BlockTxsRead{latest: vars["latest"].(bool), limit: vars["limit"].(int), offset: vars["offset"].(int)}
	if h, ok := vars["height"].(int); ok {
		p.height = &h
	}
	if h, ok := vars["hash"].(string); ok {
		p.hash = &h
	}
	return p, nil
}

func (p v2BlockTxsRead) etag(ctx context.Context, c genql.Client) (string, error) {
	d, err := V2BlockTag(ctx, c, p.latest, p.height, p.hash)
	if err != nil {
		return "", err
	}
	return p.blockTag(d.Tip.IndexBlockHash, d.Tag), nil
}

// blockTag is "<index block hash>:<canonical>" of the block the request names the way the
// reference names it for caching: by index block hash only (a block hash gets no ETag), by
// canonical height, or the tip.
func (p v2BlockTxsRead) blockTag(tip string, tag *V2BlockTagFieldsTagBlock) string {
	switch {
	case p.latest:
		if tip == "0x" {
			return ""
		}
		return tip + ":true"
	case tag == nil:
		return ""
	case p.hash != nil && *p.hash != tag.IndexBlockHash:
		return ""
	}
	return tag.IndexBlockHash + ":" + strconv.FormatBool(tag.Canonical)
}

// answer renders a page of the block's transactions; like every v2 transaction list of the
// reference, contract calls are described without the called contract's ABI. The reference
// answers an empty page (a block unknown, or an offset past its transactions, or limit 0) as not
// found.
func (p v2BlockTxsRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2BlockTransactions(ctx, c, p.latest, p.height, p.hash, p.limit, p.offset, false, false)
	if err != nil {
		return nil, "", err
	}
	tag := p.blockTag(d.Tip.IndexBlockHash, d.Tag)
	if d.Block == nil || len(d.Block.Results) == 0 {
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, "Block not found")
	}
	results := make([]txBody, len(d.Block.Results))
	for i := range d.Block.Results {
		if results[i], err = minedTxBody(&d.Block.Results[i], nil); err != nil {
			return nil, tag, err
		}
	}
	body, err := marshal(page[txBody]{Limit: p.limit, Offset: p.offset, Total: &d.Block.Total, Results: results})
	return body, tag, err
}
