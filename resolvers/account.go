package resolvers

import (
	"cmp"
	"context"
	"math/big"
	"slices"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

// validPrincipal checks an address or contract principal (c32check included) by the reference's
// rule and with its message; principals it accepts but that never occur simply have no history.
func validPrincipal(p string) error {
	if !c32.ValidPrincipalLenient(p) {
		return invalid("invalid STX address %q", p)
	}
	return nil
}

// untilHeight resolves the "up to this block" arguments (a height, or a block hash looked up
// among canonical and non-canonical blocks) to a height; 0 means the tip.
func (r *Resolver) untilHeight(ctx context.Context, unanchored bool, atHeight *int32, atBlockHash []byte) (int32, error) {
	if atHeight == nil && atBlockHash == nil {
		return 0, nil
	}
	switch {
	case unanchored:
		return 0, invalid(MsgUnanchoredAndUntil)
	case atHeight != nil && atBlockHash != nil:
		return 0, invalid("give either atHeight or atBlockHash, not both")
	case atHeight != nil && *atHeight < 1:
		return 0, invalid(MsgBadBlockHeight)
	case atHeight != nil:
		return *atHeight, nil
	}
	h, ok, err := r.Store.BlockHeightByHash(ctx, atBlockHash)
	if err == nil && !ok {
		err = stxgraph.Errorf(stxgraph.ENOTFOUND, "block not found with hash")
	}
	return h, err
}

func (r accountResolver) StxBalance(ctx context.Context, a *db.Account, unanchored *bool, atHeight *int32, atBlockHash []byte) (*db.StxBalance, error) {
	h, err := r.untilHeight(ctx, deref(unanchored), atHeight, atBlockHash)
	if err != nil {
		return nil, err
	}
	at := db.BalanceAt{Height: h, Unanchored: deref(unanchored)}
	return loaders.For(ctx).StxBalance.Load(ctx, loaders.BalanceKey{Principal: a.Principal, At: at})()
}

// latestOf asks for the account's figures that every balance row carries (newest transaction
// ids, transaction count): a REST balance read with its ETag, at the tip or at a height, is one
// statement.
func latestOf(ctx context.Context, principal string) dataloader.Thunk[*db.StxBalance] {
	return loaders.For(ctx).StxBalance.Load(ctx, loaders.BalanceKey{Principal: principal, AnyState: true})
}

func (r accountResolver) TransactionsWithTransfers(ctx context.Context, a *db.Account, limit, offset, height *int32, unanchored *bool, atHeight *int32, atBlockHash []byte) (*graph.TransactionsWithTransfersPage, error) {
	if height != nil && (atHeight != nil || atBlockHash != nil) {
		return nil, invalid(MsgUntilAndHeight)
	}
	if height != nil && *height < 1 {
		return nil, invalid("height must be >= 1")
	}
	upTo, err := r.untilHeight(ctx, deref(unanchored), atHeight, atBlockHash)
	if err != nil {
		return nil, err
	}
	l, o, err := page(limit, offset, MaxAccountTxsPage)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.PrincipalTxPage(ctx, a.Principal, db.PrincipalTxQuery{
		AtHeight: deref(height), UpTo: upTo, Unanchored: deref(unanchored), Limit: l, Offset: o,
	})
	if err != nil {
		return nil, err
	}
	txs := p.Txs
	latest, err := latestOfPage(ctx, a.Principal, p)
	if err != nil {
		return nil, err
	}
	// The page is the newest transactions in chain order; within it, the reference orders them by
	// block height and transaction index only, so a block's microblock transactions (higher
	// indexes) come before its anchored ones.
	slices.SortStableFunc(txs, func(x, y *db.Tx) int {
		return cmp.Or(cmp.Compare(y.BlockHeight, x.BlockHeight), cmp.Compare(y.TxIndex, x.TxIndex))
	})
	transfers, err := r.transfersIn(ctx, a.Principal, txs)
	if err != nil {
		return nil, err
	}
	return &graph.TransactionsWithTransfersPage{Total: int32(p.Total), Results: withTransfers(a.Principal, txs, transfers), LatestTxID: latest}, nil
}

// latestOfPage is the principal's newest transaction id, which a page of its list reads with its
// rows; an empty page, which reads none, takes it from the balance row.
func latestOfPage(ctx context.Context, principal string, p *db.TxPage) ([]byte, error) {
	if len(p.Txs) > 0 {
		return p.LatestTxID, nil
	}
	b, err := latestOf(ctx, principal)()
	if err != nil {
		return nil, err
	}
	return b.LatestTxID, nil
}

// transfersIn reads the principal's transfers in these transactions.
func (r accountResolver) transfersIn(ctx context.Context, principal string, txs []*db.Tx) (*db.Transfers, error) {
	positions := make([]db.TxPosition, len(txs))
	for i, t := range txs {
		positions[i] = t.Position()
	}
	return r.Store.PrincipalTransfers(ctx, principal, positions)
}

// withTransfers groups the principal's transfers under their transactions and totals what it
// sent and received. As in the reference, stx_sent includes the fee whenever the principal is
// the sender, even of a sponsored transaction.
func withTransfers(principal string, txs []*db.Tx, t *db.Transfers) []*graph.TransactionWithTransfers {
	out := make([]*graph.TransactionWithTransfers, len(txs))
	index := make(map[db.TxKey]int, len(txs)) // a transaction's place in txs
	sent, received := make([]*big.Int, len(txs)), make([]*big.Int, len(txs))
	for i, tx := range txs {
		out[i] = &graph.TransactionWithTransfers{Tx: tx, StxTransfers: []*db.StxEvent{}, FtTransfers: []*db.FtEvent{}, NftTransfers: []*db.NftEvent{}}
		index[tx.Key()] = i
		sent[i], received[i] = new(big.Int), new(big.Int)
		if tx.SenderAddress == principal {
			sent[i].Add(sent[i], amount(tx.FeeRate))
		}
	}
	// PrincipalTransfers returns the events of txs alone, so each has its place.
	for _, e := range t.Stx {
		i := index[e.TxKey()]
		out[i].StxTransfers = append(out[i].StxTransfers, e)
		if deref(e.Sender) == principal {
			sent[i].Add(sent[i], amount(e.Amount))
		}
		if deref(e.Recipient) == principal {
			received[i].Add(received[i], amount(e.Amount))
		}
	}
	for _, e := range t.Ft {
		i := index[e.TxKey()]
		out[i].FtTransfers = append(out[i].FtTransfers, e)
	}
	for _, e := range t.Nft {
		i := index[e.TxKey()]
		out[i].NftTransfers = append(out[i].NftTransfers, e)
	}
	for i := range out {
		out[i].StxSent, out[i].StxReceived = sent[i].String(), received[i].String()
	}
	return out
}

// amount parses a stored decimal amount (numeric columns always hold one).
func amount(s string) *big.Int {
	n, _ := new(big.Int).SetString(s, 10)
	if n == nil {
		return new(big.Int)
	}
	return n
}

func (r accountResolver) LatestTxID(ctx context.Context, a *db.Account) ([]byte, error) {
	b, err := latestOf(ctx, a.Principal)()
	if err != nil {
		return nil, err
	}
	return b.LatestTxID, nil
}

func (r accountResolver) LatestMempoolTxID(ctx context.Context, a *db.Account) ([]byte, error) {
	b, err := latestOf(ctx, a.Principal)()
	if err != nil {
		return nil, err
	}
	return b.LatestMempoolTxID, nil
}

// Nonces are read for every account of a request in one statement.
func (r accountResolver) Nonces(ctx context.Context, a *db.Account) (*db.AccountNonces, error) {
	return loaders.For(ctx).AccountNonces.Load(ctx, a.Principal)()
}
