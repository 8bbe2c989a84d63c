package resolvers

import (
	"cmp"
	"context"
	"math/big"
	"slices"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

func (r accountResolver) TransactionSummaries(ctx context.Context, a *db.Account, limit, offset *int32) (*graph.TransactionSummaryPage, error) {
	l, o, err := page(limit, offset, MaxAccountTxsPage)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.SummaryTxPage(ctx, a.Principal, l, o)
	if err != nil {
		return nil, err
	}
	latest, err := latestOfPage(ctx, a.Principal, p)
	if err != nil {
		return nil, err
	}
	transfers, err := r.transfersIn(ctx, a.Principal, p.Txs)
	if err != nil {
		return nil, err
	}
	return &graph.TransactionSummaryPage{Total: int32(p.Total), Results: summaries(a.Principal, p.Txs, transfers), LatestTxID: latest}, nil
}

// summaries totals, per transaction, the STX the principal sent and received and counts its
// asset events. Unlike transactions_with_transfers, the fee counts for whoever paid it: the
// sender of an unsponsored transaction, or the sponsor.
func summaries(principal string, txs []*db.Tx, t *db.Transfers) []*graph.TransactionSummary {
	type figures struct {
		sent, received *big.Int
		counts         *graph.AssetEventCounts
	}
	byKey := make(map[db.TxKey]*figures, len(txs))
	for _, tx := range txs {
		f := &figures{sent: new(big.Int), received: new(big.Int), counts: &graph.AssetEventCounts{
			Stx: &graph.AssetEventKindCounts{}, Ft: &graph.AssetEventKindCounts{}, Nft: &graph.AssetEventKindCounts{}}}
		payer := tx.SenderAddress
		if tx.Sponsored {
			payer = deref(tx.SponsorAddress)
		}
		if payer == principal {
			f.sent.Add(f.sent, amount(tx.FeeRate))
		}
		byKey[tx.Key()] = f
	}
	for _, e := range t.Stx {
		f := byKey[e.TxKey()]
		count(f.counts.Stx, e.AssetEventTypeID)
		if deref(e.Sender) == principal {
			f.sent.Add(f.sent, amount(e.Amount))
		}
		if deref(e.Recipient) == principal {
			f.received.Add(f.received, amount(e.Amount))
		}
	}
	for _, e := range t.Ft {
		count(byKey[e.TxKey()].counts.Ft, e.AssetEventTypeID)
	}
	for _, e := range t.Nft {
		count(byKey[e.TxKey()].counts.Nft, e.AssetEventTypeID)
	}
	out := make([]*graph.TransactionSummary, len(txs))
	for i, tx := range txs {
		f := byKey[tx.Key()]
		out[i] = &graph.TransactionSummary{Tx: tx, StxSent: f.sent.String(), StxReceived: f.received.String(), Events: f.counts}
	}
	return out
}

// count adds one event of the given asset event type.
func count(c *graph.AssetEventKindCounts, typeID int16) {
	switch typeID {
	case db.AssetEventTransfer:
		c.Transfer++
	case db.AssetEventMint:
		c.Mint++
	case db.AssetEventBurn:
		c.Burn++
	}
}

func (r accountResolver) TransactionAssetEvents(ctx context.Context, a *db.Account, txID []byte, limit, offset *int32) (*graph.AccountAssetEventPage, error) {
	l, o, err := page(limit, offset, MaxAccountTxsPage)
	if err != nil {
		return nil, err
	}
	txs, exists, err := r.Store.CanonicalTxPositions(ctx, txID)
	switch {
	case err != nil:
		return nil, err
	case !exists:
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, "Transaction not found")
	}
	events := []*graph.AccountAssetEvent{}
	if len(txs) > 0 {
		t, err := r.Store.PrincipalTransfers(ctx, a.Principal, txs)
		if err != nil {
			return nil, err
		}
		if events, err = assetEvents(t); err != nil {
			return nil, err
		}
	}
	// As the reference counts over the page's rows, a page past the end has total 0.
	window := events[min(o, len(events)):min(o+l, len(events))]
	if len(window) == 0 {
		return &graph.AccountAssetEventPage{Results: window}, nil
	}
	return &graph.AccountAssetEventPage{Total: int32(len(events)), Results: window}, nil
}

// assetEvents lists the transfers by event index.
func assetEvents(t *db.Transfers) ([]*graph.AccountAssetEvent, error) {
	var out []*graph.AccountAssetEvent
	for _, e := range t.Stx {
		out = append(out, &graph.AccountAssetEvent{Asset: graph.AssetClassStx, EventIndex: e.EventIndex, Type: e.AssetEventType(),
			Amount: &e.Amount, Sender: e.Sender, Recipient: e.Recipient})
	}
	for _, e := range t.Ft {
		out = append(out, &graph.AccountAssetEvent{Asset: graph.AssetClassFt, EventIndex: e.EventIndex, Type: e.AssetEventType(),
			Amount: &e.Amount, AssetIdentifier: &e.AssetIdentifier, Sender: e.Sender, Recipient: e.Recipient})
	}
	for _, e := range t.Nft {
		v, err := e.DecodedValue()
		if err != nil {
			return nil, err
		}
		out = append(out, &graph.AccountAssetEvent{Asset: graph.AssetClassNft, EventIndex: e.EventIndex, Type: e.AssetEventType(),
			AssetIdentifier: &e.AssetIdentifier, Value: v, Sender: e.Sender, Recipient: e.Recipient})
	}
	slices.SortStableFunc(out, func(x, y *graph.AccountAssetEvent) int { return cmp.Compare(x.EventIndex, y.EventIndex) })
	return out, nil
}

func (r queryResolver) ContractStatuses(ctx context.Context, ids []string) ([]*graph.ContractStatus, error) {
	rows, err := r.Store.ContractStatuses(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*graph.ContractStatus, 0, len(ids))
	found := map[string]bool{}
	for _, d := range rows {
		status, err := d.TxStatus()
		if err != nil {
			return nil, err
		}
		found[d.ContractID] = true
		out = append(out, &graph.ContractStatus{ContractID: d.ContractID, Found: true, Status: &status, TxID: d.TxID, BlockHeight: d.BlockHeight})
	}
	for _, id := range ids {
		if !found[id] {
			found[id] = true
			out = append(out, &graph.ContractStatus{ContractID: id})
		}
	}
	return out, nil
}

func (r queryResolver) MempoolFeePriorities(ctx context.Context) (*graph.MempoolFeePriorities, error) {
	rows, err := r.Store.MempoolFeePriorities(ctx)
	if err != nil {
		return nil, err
	}
	out := &graph.MempoolFeePriorities{All: &graph.FeePriorities{NoPriority: "0", LowPriority: "0", MediumPriority: "0", HighPriority: "0"}}
	for _, p := range rows {
		f := &graph.FeePriorities{NoPriority: orZero(p.No), LowPriority: orZero(p.Low), MediumPriority: orZero(p.Medium), HighPriority: orZero(p.High)}
		switch {
		case p.TypeID == nil:
			out.All = f
		case *p.TypeID == db.TypeTokenTransfer:
			out.TokenTransfer = f
		case *p.TypeID == db.TypeContractCall:
			out.ContractCall = f
		case *p.TypeID == db.TypeSmartContract:
			out.SmartContract = f
		}
	}
	return out, nil
}

// orZero is a percentile of the empty mempool (null) as 0, as the reference renders it.
func orZero(s *string) string {
	if s == nil {
		return "0"
	}
	return *s
}

func (r queryResolver) ChainTipBlock(ctx context.Context) (*db.Block, error) {
	tip, err := r.chainTip(ctx)
	if err != nil || len(tip.IndexBlockHash) == 0 {
		return nil, err
	}
	return r.Store.BlockByHash(ctx, tip.IndexBlockHash)
}

// Pox4Lock is read for every account of a request in one statement.
func (r accountResolver) Pox4Lock(ctx context.Context, a *db.Account) (*db.Pox4Lock, error) {
	return loaders.For(ctx).Pox4Lock.Load(ctx, a.Principal)()
}
