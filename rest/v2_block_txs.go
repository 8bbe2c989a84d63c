package rest

import (
	"context"
	"net/http"

	genql "github.com/Khan/genqlient/graphql"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
)

// v2BlockTxsRead is a read of GET /extended/v2/blocks/{height_or_hash}/transactions: the block
// latest, at a height or by hash, and a page of its transactions.
type v2BlockTxsRead struct {
	blockID
	limit, offset int
}

func v2BlockTxsParams(r *http.Request) (read, error) {
	id, err := parseHeightOrHash(r)
	if err != nil {
		return nil, err
	}
	p := v2BlockTxsRead{blockID: id}
	p.limit, p.offset, err = keptPage(r, txLimit, resolvers.MaxAccountTxsPage)
	return p, err
}

func (p v2BlockTxsRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return p.readTag(ctx, c)
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
	tag := p.tagFrom(d.Tip.IndexBlockHash, d.Tag)
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
