package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/stxgraph/stxgraph/brc20"
)

// BRC-20 lists are read in keyset order, every column descending, so that a cursor (the key of
// the last row seen) becomes one row comparison that walks a composite index from there: a page
// costs the same however long the list. Offsets, which the reference's paging uses, are applied
// after the cursor.

// Brc20Cursor is the key of a row in a BRC-20 list: a numeric (a balance, as a decimal integer
// string), up to two integers and a text column, as the list's order uses them. It is comparable
// so that loaders can batch on it.
type Brc20Cursor struct {
	Set  bool
	Num  string
	Key  [2]int64
	Text string
}

// Brc20Page is one page of a BRC-20 list: Limit rows after the cursor (from the start when unset),
// skipping Offset rows first.
type Brc20Page struct {
	After  Brc20Cursor
	Offset int
	Limit  int
}

// Brc20Balance is an address's balance of a BRC-20 token, in integer units scaled by
// 10^decimals: available plus transferable (inscribed, not yet sent) makes the total.
type Brc20Balance struct {
	Ticker       string `bun:"ticker,pk"`
	Address      string `bun:"address,pk"`
	AvailBalance string `bun:"avail_balance"`
	TransBalance string `bun:"trans_balance"`
	TotalBalance string `bun:"total_balance"`
	// Decimals of the token, joined for formatting.
	Decimals int32 `bun:"decimals"`
}

// Brc20TokenSort is an order of the token list.
type Brc20TokenSort int

const (
	// Brc20ByDeploy lists the newest deploy first.
	Brc20ByDeploy Brc20TokenSort = iota
	// Brc20ByTxCount lists the tokens with the most operations first.
	Brc20ByTxCount
)

// Brc20TokenFilter selects tokens: those whose ticker starts with one of Prefixes (in any case).
type Brc20TokenFilter struct {
	Prefixes []string
}

// where renders the filter as a condition on brc20_tokens (alias t) with its arguments. Prefixes
// are matched with LIKE, their wildcards escaped, so the text_pattern_ops index serves them.
// (The reference does not escape them: "_rdi" matches ordi there.)
func (f Brc20TokenFilter) where() (string, []any) {
	if len(f.Prefixes) == 0 {
		return "TRUE", nil
	}
	conds := make([]string, len(f.Prefixes))
	args := make([]any, len(f.Prefixes))
	for i, p := range f.Prefixes {
		conds[i], args[i] = "t.ticker LIKE ?", likePrefix(brc20.Lower(p))
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// likePrefix escapes LIKE's wildcards in p and appends %.
func likePrefix(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(p) + "%"
}

// tokenOrderCols are the key columns of each token order; the ticker makes every key unique.
var tokenOrderCols = map[Brc20TokenSort]string{
	Brc20ByDeploy:  "t.block_height, t.tx_index, t.ticker",
	Brc20ByTxCount: "t.tx_count, t.ticker",
}

// Brc20Tokens returns one page of the tokens the filter keeps, in the given order. Cursor keys:
// Key = (block_height, tx_index) or (tx_count), Text = ticker.
func (s *Store) Brc20Tokens(ctx context.Context, f Brc20TokenFilter, order Brc20TokenSort, p Brc20Page) ([]*Brc20Token, error) {
	cond, args := f.where()
	cols := tokenOrderCols[order]
	if p.After.Set {
		if order == Brc20ByDeploy {
			cond += " AND (t.block_height, t.tx_index, t.ticker) < (?, ?, ?)"
			args = append(args, p.After.Key[0], p.After.Key[1], p.After.Text)
		} else {
			cond += " AND (t.tx_count, t.ticker) < (?, ?)"
			args = append(args, p.After.Key[0], p.After.Text)
		}
	}
	var rows []*Brc20Token
	q := fmt.Sprintf("SELECT t.* FROM brc20_tokens AS t WHERE %s ORDER BY %s OFFSET ? LIMIT ?", cond, descending(cols))
	err := s.DB.NewRaw(q, append(args, p.Offset, p.Limit)...).Scan(ctx, &rows)
	return rows, err
}

// Brc20TokenCount counts the tokens the filter keeps.
func (s *Store) Brc20TokenCount(ctx context.Context, f Brc20TokenFilter) (int64, error) {
	cond, args := f.where()
	var n int64
	err := s.DB.NewRaw("SELECT count(*) FROM brc20_tokens AS t WHERE "+cond, args...).Scan(ctx, &n)
	return n, err
}

// lowerIn renders "col IN (?, …)" for tickers given in any case, lower-cased: a list of
// constants, so that one ticker walks the column's ordered index (an array parameter would not).
func lowerIn(col string, tickers []string) (string, []any) {
	marks := make([]string, len(tickers))
	args := make([]any, len(tickers))
	for i, t := range tickers {
		marks[i], args[i] = "?", brc20.Lower(t)
	}
	return col + " IN (" + strings.Join(marks, ", ") + ")", args
}

// descending renders "a DESC, b DESC" from "a, b".
func descending(cols string) string {
	return strings.ReplaceAll(cols, ",", " DESC,") + " DESC"
}

// Brc20HoldersOf returns one page of holders (total balance above zero) for each token, largest
// balance first, ties by address (descending), in one statement: each token's page walks
// brc20_balances_holder_key_idx from the cursor (Num = total balance, Text = address).
func (s *Store) Brc20HoldersOf(ctx context.Context, tickers []string, p Brc20Page) ([]*Brc20Balance, error) {
	cond, args := "TRUE", []any(nil)
	if p.After.Set {
		cond, args = "(b.total_balance, b.address) < (?::numeric, ?)", []any{p.After.Num, p.After.Text}
	}
	var rows []*Brc20Balance
	err := pagePerKey{
		Select: "b.*", Keys: textArray(tickers), Type: "text", Key: "ticker",
		Inner: `SELECT b.ticker, b.address, b.avail_balance, b.trans_balance, b.total_balance, t.decimals
			FROM brc20_balances AS b JOIN brc20_tokens AS t ON t.ticker = b.ticker
			WHERE b.ticker = k.ticker AND b.total_balance > 0 AND ` + cond + `
			ORDER BY b.total_balance DESC, b.address DESC OFFSET ?`,
		Args: append(args, p.Offset), Limit: p.Limit, As: "b",
	}.scan(ctx, s, &rows)
	return rows, err
}

// Brc20BalanceFilter selects an address's balances: tickers starting with one of Prefixes (in any
// case), and the balances at the end of the block at AtHeight instead of the latest.
type Brc20BalanceFilter struct {
	Prefixes []string
	AtHeight *int32
}

// brc20BalancesFrom renders the address's balance rows (b: ticker, address, avail_balance,
// trans_balance, total_balance, decimals) the filter keeps, with their arguments after the
// address. At a height each token's balance is the latest history row at or below it, found
// through the history's primary key from the address's token rows: the cost follows the number
// of tokens the address has held, not the length of its history.
func (f Brc20BalanceFilter) from(address string) (string, []any) {
	var q string
	args := []any{address}
	if f.AtHeight == nil {
		q = `SELECT c.ticker, c.address, c.avail_balance, c.trans_balance, c.total_balance, t.decimals
			FROM brc20_balances AS c JOIN brc20_tokens AS t ON t.ticker = c.ticker
			WHERE c.address = ? AND c.total_balance > 0`
	} else {
		q = `SELECT c.ticker, c.address, h.avail_balance, h.trans_balance, h.total_balance, t.decimals
			FROM brc20_balances AS c JOIN brc20_tokens AS t ON t.ticker = c.ticker
			CROSS JOIN LATERAL (SELECT h.avail_balance, h.trans_balance, h.total_balance FROM brc20_balance_history AS h
				WHERE h.ticker = c.ticker AND h.address = c.address AND h.block_height <= ?
				ORDER BY h.block_height DESC LIMIT 1) AS h
			WHERE c.address = ? AND h.total_balance > 0`
		args = []any{*f.AtHeight, address}
	}
	if len(f.Prefixes) > 0 {
		cond, more := Brc20TokenFilter{Prefixes: f.Prefixes}.where()
		q += " AND " + strings.ReplaceAll(cond, "t.ticker", "c.ticker")
		args = append(args, more...)
	}
	return q, args
}

// Brc20Balances returns one page of the address's balances above zero, largest first, ties by
// ticker (descending); cursor keys: Num = total balance, Text = ticker.
func (s *Store) Brc20Balances(ctx context.Context, address string, f Brc20BalanceFilter, p Brc20Page) ([]*Brc20Balance, error) {
	inner, args := f.from(address)
	cond := "TRUE"
	if p.After.Set {
		cond = "(b.total_balance, b.ticker) < (?::numeric, ?)"
		args = append(args, p.After.Num, p.After.Text)
	}
	var rows []*Brc20Balance
	q := "SELECT b.* FROM (" + inner + ") AS b WHERE " + cond + " ORDER BY b.total_balance DESC, b.ticker DESC OFFSET ? LIMIT ?"
	err := s.DB.NewRaw(q, append(args, p.Offset, p.Limit)...).Scan(ctx, &rows)
	return rows, err
}

// Brc20BalanceCount counts the address's balances above zero the filter keeps.
func (s *Store) Brc20BalanceCount(ctx context.Context, address string, f Brc20BalanceFilter) (int64, error) {
	inner, args := f.from(address)
	var n int64
	err := s.DB.NewRaw("SELECT count(*) FROM ("+inner+") AS b", args...).Scan(ctx, &n)
	return n, err
}

// Brc20OperationRecord is one BRC-20 operation as brc20_operations keeps it.
type Brc20OperationRecord struct {
	InscriptionID     string  `bun:"inscription_id,pk"`
	Operation         string  `bun:"operation,pk"`
	Ticker            string  `bun:"ticker"`
	BlockHeight       int32   `bun:"block_height"`
	BlockHash         string  `bun:"block_hash"`
	TxID              string  `bun:"tx_id"`
	TxIndex           int32   `bun:"tx_index"`
	EventIndex        int32   `bun:"event_index"`
	Location          string  `bun:"location"`
	Address           string  `bun:"address"`
	ToAddress         *string `bun:"to_address"`
	Amount            string  `bun:"amount"`
	Timestamp         int64   `bun:"timestamp"`
	InscriptionNumber int64   `bun:"inscription_number"`
}

// Brc20Activity is one BRC-20 operation with the figures of its token needed to show it.
type Brc20Activity struct {
	Brc20OperationRecord
	// The token's decimals, maximum supply and mint limit.
	Decimals  int32  `bun:"decimals"`
	MaxSupply string `bun:"max_supply"`
	MintLimit string `bun:"mint_limit"`
}

// Brc20ActivityFilter selects operations. Tickers match exactly (in any case); Address matches
// the sender or the receiver. The receive half of a send is never listed (the send row carries
// both addresses), as in the reference.
type Brc20ActivityFilter struct {
	Tickers     []string
	Operations  []string
	Address     string
	BlockHeight *int32
}

// where renders the filter's conditions on brc20_operations (alias o), without the address.
func (f Brc20ActivityFilter) where() (string, []any) {
	conds := []string{"o.operation <> 'transfer_receive'"}
	var args []any
	if len(f.Operations) > 0 {
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(f.Operations)), ", ")
		conds = append(conds, "o.operation IN ("+marks+")")
		for _, op := range f.Operations {
			args = append(args, op)
		}
	}
	if len(f.Tickers) > 0 {
		cond, more := lowerIn("o.ticker", f.Tickers)
		conds, args = append(conds, cond), append(args, more...)
	}
	if f.BlockHeight != nil {
		conds = append(conds, "o.block_height = ?")
		args = append(args, *f.BlockHeight)
	}
	return strings.Join(conds, " AND "), args
}

const operationColumns = `o.inscription_id, o.operation, o.ticker, o.block_height, o.block_hash, o.tx_id, o.tx_index,
	o.event_index, o.location, o.address, o.to_address, o.amount, o.timestamp, o.inscription_number`

// Brc20Activity returns one page of the operations the filter keeps, newest first (cursor keys:
// Key = (block_height, event_index)). With an address, the operations it sends and those it
// receives are read as two ordered branches, each walking its own index from the cursor, and
// merged: neither branch sorts the address's whole history.
func (s *Store) Brc20Activity(ctx context.Context, f Brc20ActivityFilter, p Brc20Page) ([]*Brc20Activity, error) {
	cond, args := f.where()
	if p.After.Set {
		cond += " AND (o.block_height, o.event_index) < (?, ?)"
		args = append(args, p.After.Key[0], p.After.Key[1])
	}
	const order = " ORDER BY o.block_height DESC, o.event_index DESC"
	var q string
	var all []any
	if f.Address == "" {
		q = "SELECT " + operationColumns + " FROM brc20_operations AS o WHERE " + cond + order + " OFFSET ? LIMIT ?"
		all = append(args, p.Offset, p.Limit)
	} else {
		n := p.Offset + p.Limit
		q = "SELECT o.* FROM ((SELECT " + operationColumns + " FROM brc20_operations AS o WHERE o.address = ? AND " + cond + order + " LIMIT ?)" +
			" UNION ALL (SELECT " + operationColumns + " FROM brc20_operations AS o WHERE o.to_address = ? AND o.address <> ? AND " + cond + order + " LIMIT ?)) AS o" +
			order + " OFFSET ? LIMIT ?"
		all = append(append(append([]any{f.Address}, args...), n, f.Address, f.Address), args...)
		all = append(all, n, p.Offset, p.Limit)
	}
	var rows []*Brc20Activity
	q = "SELECT o.*, t.decimals, t.max_supply, t.mint_limit FROM (" + q + ") AS o JOIN brc20_tokens AS t ON t.ticker = o.ticker" + order
	err := s.DB.NewRaw(q, all...).Scan(ctx, &rows)
	return rows, err
}

// Brc20ActivityCount counts the operations the filter keeps. With no filter but tickers it sums
// the tokens' operation counts (every listed operation is counted there) instead of counting rows.
func (s *Store) Brc20ActivityCount(ctx context.Context, f Brc20ActivityFilter) (int64, error) {
	var n int64
	if len(f.Operations) == 0 && f.Address == "" && f.BlockHeight == nil {
		q, args := "SELECT coalesce(sum(tx_count), 0) FROM brc20_tokens AS t", []any(nil)
		if len(f.Tickers) > 0 {
			cond, more := lowerIn("t.ticker", f.Tickers)
			q, args = q+" WHERE "+cond, more
		}
		err := s.DB.NewRaw(q, args...).Scan(ctx, &n)
		return n, err
	}
	cond, args := f.where()
	q := "SELECT count(*) FROM brc20_operations AS o WHERE " + cond
	if f.Address != "" {
		q += " AND (o.address = ? OR o.to_address = ?)"
		args = append(args, f.Address, f.Address)
	}
	err := s.DB.NewRaw(q, args...).Scan(ctx, &n)
	return n, err
}

// Brc20BlockActivity returns the operations of the block at height with that hash that concern
// the ticker and/or the address ("" for either: not filtered), in block order.
func (s *Store) Brc20BlockActivity(ctx context.Context, height int32, hash, ticker, address string) ([]*Brc20Activity, error) {
	f := Brc20ActivityFilter{BlockHeight: &height}
	if ticker != "" {
		f.Tickers = []string{ticker}
	}
	cond, args := f.where()
	if address != "" {
		cond += " AND (o.address = ? OR o.to_address = ?)"
		args = append(args, address, address)
	}
	var rows []*Brc20Activity
	q := "SELECT " + operationColumns + ", t.decimals, t.max_supply, t.mint_limit FROM brc20_operations AS o JOIN brc20_tokens AS t ON t.ticker = o.ticker WHERE " +
		cond + " AND o.block_hash = ? ORDER BY o.event_index"
	err := s.DB.NewRaw(q, append(args, hash)...).Scan(ctx, &rows)
	return rows, err
}

// Brc20Transferable is a transfer inscription not sent yet.
type Brc20Transferable struct {
	InscriptionID     string `bun:"inscription_id"`
	InscriptionNumber int64  `bun:"inscription_number"`
	OrdinalNumber     int64  `bun:"ordinal_number"`
	Ticker            string `bun:"ticker"`
	Address           string `bun:"address"`
	Amount            string `bun:"amount"`
	BlockHeight       int32  `bun:"block_height"`
	TxIndex           int32  `bun:"tx_index"`
	Decimals          int32  `bun:"decimals"`
}

// Brc20TransferableFilter selects the unsent transfer inscriptions of an address, of Tickers
// (exact, in any case) when given.
type Brc20TransferableFilter struct {
	Address string
	Tickers []string
}

// where renders the filter's conditions on brc20_transferables (alias r).
func (f Brc20TransferableFilter) where() (string, []any) {
	cond, args := "r.address = ?", []any{f.Address}
	if len(f.Tickers) > 0 {
		in, more := lowerIn("r.ticker", f.Tickers)
		cond, args = cond+" AND "+in, append(args, more...)
	}
	return cond, args
}

// Brc20Transferables returns one page of the address's unsent transfer inscriptions, newest first
// (cursor keys: Key = (block_height, tx_index), Text = inscription id).
func (s *Store) Brc20Transferables(ctx context.Context, f Brc20TransferableFilter, p Brc20Page) ([]*Brc20Transferable, error) {
	cond, args := f.where()
	if p.After.Set {
		cond += " AND (r.block_height, r.tx_index, r.inscription_id) < (?, ?, ?)"
		args = append(args, p.After.Key[0], p.After.Key[1], p.After.Text)
	}
	var rows []*Brc20Transferable
	q := `SELECT r.inscription_id, r.inscription_number, r.ordinal_number, r.ticker, r.address, r.amount, r.block_height, r.tx_index, t.decimals
		FROM brc20_transferables AS r JOIN brc20_tokens AS t ON t.ticker = r.ticker WHERE ` + cond +
		" ORDER BY r.block_height DESC, r.tx_index DESC, r.inscription_id DESC OFFSET ? LIMIT ?"
	err := s.DB.NewRaw(q, append(args, p.Offset, p.Limit)...).Scan(ctx, &rows)
	return rows, err
}

// Brc20TransferableCount counts the unsent transfer inscriptions the filter keeps.
func (s *Store) Brc20TransferableCount(ctx context.Context, f Brc20TransferableFilter) (int64, error) {
	cond, args := f.where()
	var n int64
	err := s.DB.NewRaw("SELECT count(*) FROM brc20_transferables AS r WHERE "+cond, args...).Scan(ctx, &n)
	return n, err
}
