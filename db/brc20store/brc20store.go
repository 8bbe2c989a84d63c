// Package brc20store keeps the BRC-20 state in PostgreSQL: it reads the state brc20.Process
// works against (it implements brc20.State) and writes and rolls back the changes of each block,
// announcing them in the notice log. The reads the API serves are in package db.
package brc20store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/stxgraph/stxgraph/brc20"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
)

// Tx is one database transaction of BRC-20 ingestion. It is the state brc20.Process reads.
type Tx struct {
	tx bun.Tx
}

var _ brc20.State = (*Tx)(nil)

// Ingest runs fn in one transaction of store; ingestion transactions run one at a time.
func Ingest(ctx context.Context, store *db.Store, fn func(ctx context.Context, tx *Tx) error) error {
	return store.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext('brc20 ingestion'))"); err != nil {
			return err
		}
		return fn(ctx, &Tx{tx: tx})
	})
}

// Tip returns the highest applied block, or ok=false when none is.
func (t *Tx) Tip(ctx context.Context) (height int32, hash string, ok bool, err error) {
	err = t.tx.QueryRowContext(ctx, "SELECT block_height, block_hash FROM brc20_blocks ORDER BY block_height DESC LIMIT 1").Scan(&height, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	return height, hash, err == nil, err
}

// BlockHash returns the hash of the applied block at height, or "" when none is.
func (t *Tx) BlockHash(ctx context.Context, height int32) (string, error) {
	var hash string
	err := t.tx.QueryRowContext(ctx, "SELECT block_hash FROM brc20_blocks WHERE block_height = ?", height).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return hash, err
}

type brc20BalanceRow struct {
	bun.BaseModel `bun:"table:brc20_balances"`

	Ticker       string `bun:"ticker,pk"`
	Address      string `bun:"address,pk"`
	AvailBalance string `bun:"avail_balance"`
	TransBalance string `bun:"trans_balance"`
	TotalBalance string `bun:"total_balance"`
}

type brc20HistoryRow struct {
	bun.BaseModel `bun:"table:brc20_balance_history"`

	Ticker       string `bun:"ticker,pk"`
	Address      string `bun:"address,pk"`
	BlockHeight  int32  `bun:"block_height,pk"`
	AvailBalance string `bun:"avail_balance"`
	TransBalance string `bun:"trans_balance"`
	TotalBalance string `bun:"total_balance"`
}

type brc20OperationRow struct {
	bun.BaseModel `bun:"table:brc20_operations"`

	db.Brc20OperationRecord
	OrdinalNumber int64 `bun:"ordinal_number"`
}

type brc20TransferableRow struct {
	bun.BaseModel `bun:"table:brc20_transferables"`

	InscriptionID     string `bun:"inscription_id,pk"`
	Ticker            string `bun:"ticker"`
	Address           string `bun:"address"`
	Amount            string `bun:"amount"`
	BlockHeight       int32  `bun:"block_height"`
	InscriptionNumber int64  `bun:"inscription_number"`
	OrdinalNumber     int64  `bun:"ordinal_number"`
	TxIndex           int32  `bun:"tx_index"`
}

type brc20BlockRow struct {
	bun.BaseModel `bun:"table:brc20_blocks"`

	BlockHeight int32  `bun:"block_height,pk"`
	BlockHash   string `bun:"block_hash"`
	Timestamp   int64  `bun:"timestamp"`
}

func bigOf(s string) (*big.Int, error) {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("brc20 amount %q is not an integer", s)
	}
	return v, nil
}

// Tokens implements brc20.State.
func (t *Tx) Tokens(ctx context.Context, tickers []string) (map[string]*brc20.Token, error) {
	var rows []db.Brc20Token
	if err := t.tx.NewSelect().Model(&rows).Where("ticker = ANY(?)", pgdialect.Array(tickers)).Scan(ctx); err != nil {
		return nil, err
	}
	out := make(map[string]*brc20.Token, len(rows))
	for _, r := range rows {
		tok := &brc20.Token{Ticker: r.Ticker, DisplayTicker: r.DisplayTicker, InscriptionID: r.InscriptionID,
			InscriptionNumber: r.InscriptionNumber, BlockHeight: r.BlockHeight, BlockHash: r.BlockHash, TxID: r.TxID,
			TxIndex: r.TxIndex, Address: r.Address, Decimals: int(r.Decimals), SelfMint: r.SelfMint, TxCount: r.TxCount,
			Holders: r.HolderCount, DeployTimestamp: r.DeployTimestamp}
		var err error
		if tok.Max, err = bigOf(r.MaxSupply); err != nil {
			return nil, err
		}
		if tok.Limit, err = bigOf(r.MintLimit); err != nil {
			return nil, err
		}
		if tok.Minted, err = bigOf(r.MintedSupply); err != nil {
			return nil, err
		}
		out[r.Ticker] = tok
	}
	return out, nil
}

// Balances implements brc20.State.
func (t *Tx) Balances(ctx context.Context, keys []brc20.BalanceKey) (map[brc20.BalanceKey]brc20.Balance, error) {
	tickers, addresses := make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		tickers[i], addresses[i] = k.Ticker, k.Address
	}
	var rows []brc20BalanceRow
	err := t.tx.NewSelect().Model(&rows).
		Where("(ticker, address) IN (SELECT * FROM unnest(?::text[], ?::text[]))", pgdialect.Array(tickers), pgdialect.Array(addresses)).
		Scan(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[brc20.BalanceKey]brc20.Balance, len(rows))
	for _, r := range rows {
		var b brc20.Balance
		if b.Avail, err = bigOf(r.AvailBalance); err != nil {
			return nil, err
		}
		if b.Trans, err = bigOf(r.TransBalance); err != nil {
			return nil, err
		}
		out[brc20.BalanceKey{Ticker: r.Ticker, Address: r.Address}] = b
	}
	return out, nil
}

// Transferables implements brc20.State.
func (t *Tx) Transferables(ctx context.Context, sats []int64) ([]brc20.Transferable, error) {
	var rows []brc20TransferableRow
	if err := t.tx.NewSelect().Model(&rows).Where("ordinal_number = ANY(?)", pgdialect.Array(sats)).Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]brc20.Transferable, len(rows))
	for i, r := range rows {
		amt, err := bigOf(r.Amount)
		if err != nil {
			return nil, err
		}
		out[i] = brc20.Transferable{InscriptionID: r.InscriptionID, InscriptionNumber: r.InscriptionNumber, Sat: r.OrdinalNumber,
			Ticker: r.Ticker, Address: r.Address, Amount: amt, BlockHeight: r.BlockHeight, TxIndex: r.TxIndex}
	}
	return out, nil
}

// ApplyBlock records a block and writes its changes: operations, tokens, balances with their
// history row for the block, transfer inscriptions, and the notice. The statements go to the
// database formatted, in one multi-statement round trip.
func (t *Tx) ApplyBlock(ctx context.Context, ch *brc20.Changes) error {
	var batch []string
	insert := func(q *bun.InsertQuery) { batch = append(batch, q.Returning("NULL").String()) }
	insert(t.tx.NewInsert().Model(&brc20BlockRow{BlockHeight: ch.Height, BlockHash: ch.Hash, Timestamp: ch.Timestamp}))
	if len(ch.Deployed) > 0 {
		rows := make([]db.Brc20Token, len(ch.Deployed))
		for i, tok := range ch.Deployed {
			rows[i] = tokenRow(tok)
		}
		insert(t.tx.NewInsert().Model(&rows))
	}
	if len(ch.Updated) > 0 {
		n := len(ch.Updated)
		tickers, minted, counts, holders := make([]string, n), make([]string, n), make([]int64, n), make([]int64, n)
		for i, tok := range ch.Updated {
			tickers[i], minted[i], counts[i], holders[i] = tok.Ticker, tok.Minted.String(), tok.TxCount, tok.Holders
		}
		batch = append(batch, t.tx.NewRaw(`UPDATE brc20_tokens AS t SET minted_supply = v.minted, tx_count = v.tx_count, holders = v.holders
			FROM unnest(?::text[], ?::numeric[], ?::bigint[], ?::bigint[]) AS v(ticker, minted, tx_count, holders)
			WHERE t.ticker = v.ticker`, pgdialect.Array(tickers), pgdialect.Array(minted), pgdialect.Array(counts), pgdialect.Array(holders)).String())
	}
	if len(ch.BalanceKeys) > 0 {
		rows := make([]brc20BalanceRow, len(ch.BalanceKeys))
		hist := make([]brc20HistoryRow, len(ch.BalanceKeys))
		for i, k := range ch.BalanceKeys {
			b := ch.Balances[k]
			rows[i] = brc20BalanceRow{Ticker: k.Ticker, Address: k.Address, AvailBalance: b.Avail.String(),
				TransBalance: b.Trans.String(), TotalBalance: b.Total().String()}
			hist[i] = brc20HistoryRow{Ticker: k.Ticker, Address: k.Address, BlockHeight: ch.Height,
				AvailBalance: rows[i].AvailBalance, TransBalance: rows[i].TransBalance, TotalBalance: rows[i].TotalBalance}
		}
		insert(t.tx.NewInsert().Model(&rows).On("CONFLICT (ticker, address) DO UPDATE").
			Set("avail_balance = EXCLUDED.avail_balance, trans_balance = EXCLUDED.trans_balance, total_balance = EXCLUDED.total_balance"))
		insert(t.tx.NewInsert().Model(&hist))
	}
	if len(ch.Operations) > 0 {
		rows := make([]brc20OperationRow, len(ch.Operations))
		for i, op := range ch.Operations {
			rows[i] = operationRow(op)
		}
		insert(t.tx.NewInsert().Model(&rows))
	}
	if len(ch.Sent) > 0 {
		batch = append(batch, t.tx.NewDelete().Model((*brc20TransferableRow)(nil)).Where("inscription_id = ANY(?)", pgdialect.Array(ch.Sent)).String())
	}
	if len(ch.NewTransferables) > 0 {
		rows := make([]brc20TransferableRow, len(ch.NewTransferables))
		for i, tr := range ch.NewTransferables {
			rows[i] = brc20TransferableRow{InscriptionID: tr.InscriptionID, Ticker: tr.Ticker, Address: tr.Address,
				Amount: tr.Amount.String(), BlockHeight: tr.BlockHeight, InscriptionNumber: tr.InscriptionNumber,
				OrdinalNumber: tr.Sat, TxIndex: tr.TxIndex}
		}
		insert(t.tx.NewInsert().Model(&rows))
	}
	batch = append(batch, t.noticeStatement(blockNotice(ch)))
	// No parameters: the driver sends the formatted text as one simple query.
	_, err := t.tx.Tx.ExecContext(ctx, strings.Join(batch, ";\n"))
	return err
}

func tokenRow(tok *brc20.Token) db.Brc20Token {
	return db.Brc20Token{Ticker: tok.Ticker, DisplayTicker: tok.DisplayTicker, InscriptionID: tok.InscriptionID,
		InscriptionNumber: tok.InscriptionNumber, BlockHeight: tok.BlockHeight, BlockHash: tok.BlockHash, TxID: tok.TxID,
		TxIndex: tok.TxIndex, Address: tok.Address, MaxSupply: tok.Max.String(), MintLimit: tok.Limit.String(),
		Decimals: int32(tok.Decimals), SelfMint: tok.SelfMint, MintedSupply: tok.Minted.String(), TxCount: tok.TxCount,
		HolderCount: tok.Holders, DeployTimestamp: tok.DeployTimestamp}
}

func operationRow(op brc20.Operation) brc20OperationRow {
	return brc20OperationRow{Brc20OperationRecord: db.Brc20OperationRecord{InscriptionID: op.InscriptionID, Operation: op.Kind,
		Ticker: op.Ticker, BlockHeight: op.BlockHeight, BlockHash: op.BlockHash, TxID: op.TxID, TxIndex: op.TxIndex,
		EventIndex: op.EventIndex, Location: op.Location, Address: op.Address, ToAddress: op.ToAddress,
		Amount: op.Amount.String(), Timestamp: op.Timestamp, InscriptionNumber: op.InscriptionNumber}, OrdinalNumber: op.Sat}
}

// blockNotice announces the applied block to the subscribers of the tickers and addresses its
// operations concern.
func blockNotice(ch *brc20.Changes) notices.Brc20 {
	tickers, addresses := map[string]bool{}, map[string]bool{}
	for _, op := range ch.Operations {
		tickers[op.Ticker] = true
		addresses[op.Address] = true
	}
	return notices.Brc20{Height: ch.Height, Hash: ch.Hash, Tickers: setList(tickers), Addresses: setList(addresses)}
}

// RollbackBlock undoes the applied block at height, which must be the tip: balances go back to
// their previous history rows (or away when the block created them), supplies and counts lose
// the block's operations, tokens deployed in it disappear, transfer inscriptions sent in it
// are unsent again and those inscribed in it are gone.
func (t *Tx) RollbackBlock(ctx context.Context, height int32, hash string) error {
	var ops []brc20OperationRow
	if err := t.tx.NewSelect().Model(&ops).Column("ticker", "address").Where("block_height = ?", height).Scan(ctx); err != nil {
		return err
	}
	tickers, addresses := map[string]bool{}, map[string]bool{}
	for _, op := range ops {
		tickers[op.Ticker] = true
		addresses[op.Address] = true
	}
	stmts := []string{
		// Balances the block changed go back to their state at the end of the previous change.
		`UPDATE brc20_balances AS b SET avail_balance = p.avail_balance, trans_balance = p.trans_balance, total_balance = p.total_balance
		FROM (SELECT DISTINCT ON (h.ticker, h.address) h.ticker, h.address, p.avail_balance, p.trans_balance, p.total_balance
			FROM brc20_balance_history AS h
			JOIN brc20_balance_history AS p ON p.ticker = h.ticker AND p.address = h.address AND p.block_height < h.block_height
			WHERE h.block_height = ?0
			ORDER BY h.ticker, h.address, p.block_height DESC) AS p
		WHERE b.ticker = p.ticker AND b.address = p.address`,
		// Balances the block created go away.
		`DELETE FROM brc20_balances AS b USING brc20_balance_history AS h
		WHERE h.block_height = ?0 AND b.ticker = h.ticker AND b.address = h.address
			AND NOT EXISTS (SELECT 1 FROM brc20_balance_history AS p WHERE p.ticker = h.ticker AND p.address = h.address AND p.block_height < ?0)`,
		`DELETE FROM brc20_balance_history WHERE block_height = ?0`,
		`UPDATE brc20_tokens AS t SET minted_supply = t.minted_supply - o.minted, tx_count = t.tx_count - o.n
		FROM (SELECT ticker, coalesce(sum(amount) FILTER (WHERE operation = 'mint'), 0) AS minted,
				count(*) FILTER (WHERE operation <> 'transfer_receive') AS n
			FROM brc20_operations WHERE block_height = ?0 GROUP BY ticker) AS o
		WHERE t.ticker = o.ticker AND t.block_height < ?0`,
		`DELETE FROM brc20_tokens WHERE block_height = ?0`,
		`UPDATE brc20_tokens AS t SET holders = (SELECT count(*) FROM brc20_balances AS b WHERE b.ticker = t.ticker AND b.total_balance > 0)
		WHERE t.ticker = ANY(?1)`,
		`DELETE FROM brc20_transferables WHERE block_height = ?0`,
		`INSERT INTO brc20_transferables (inscription_id, ticker, address, amount, block_height, inscription_number, ordinal_number, tx_index)
		SELECT o.inscription_id, o.ticker, o.address, o.amount, o.block_height, o.inscription_number, o.ordinal_number, o.tx_index
		FROM brc20_operations AS s
		JOIN brc20_operations AS o ON o.inscription_id = s.inscription_id AND o.operation = 'transfer'
		WHERE s.block_height = ?0 AND s.operation = 'transfer_send' AND o.block_height < ?0`,
		`DELETE FROM brc20_operations WHERE block_height = ?0`,
		`DELETE FROM brc20_blocks WHERE block_height = ?0`,
	}
	tl := setList(tickers)
	for _, q := range stmts {
		if _, err := t.tx.NewRaw(q, height, pgdialect.Array(tl)).Exec(ctx); err != nil {
			return fmt.Errorf("rolling back brc20 block %d: %w", height, err)
		}
	}
	_, err := t.tx.Tx.ExecContext(ctx, t.noticeStatement(notices.Brc20{Height: height, Hash: hash, Rollback: true, Tickers: tl, Addresses: setList(addresses)}))
	return err
}

// noticeStatement queues n on notices.Brc20Channel: kept in the notice log and sent on commit.
func (t *Tx) noticeStatement(n notices.Brc20) string {
	return t.tx.NewRaw(notices.InsertSQL, notices.Brc20Channel, n.Payload()).String()
}

func setList(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
