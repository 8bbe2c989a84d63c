package db

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// preparedMaxAge bounds how long a prepared statement lives. The store's sessions run prepared
// statements on their generic plan (checkClient), which PostgreSQL keeps for as long as the
// statement lives, even after the tables it was planned on have grown by orders of magnitude (a
// bulk import with no ANALYZE since); preparing again within a minute bounds the time such a
// plan can serve.
const preparedMaxAge = time.Minute

// preparedLifetime is how long one preparation of a statement serves: between half of
// preparedMaxAge and all of it, drawn anew each time. Every pooled connection parses and plans a
// statement again at its first use after it is prepared again (milliseconds for the larger
// ones), and the statements prepared together at start-up, all living exactly as long, did so
// all at once every minute, a pause that showed in the slowest requests of that second.
func preparedLifetime() time.Duration {
	return preparedMaxAge/2 + rand.N(preparedMaxAge/2)
}

// The reads that run on every request are prepared statements: their keys travel as parameters
// ($1, $2, …), so PostgreSQL neither parses a statement holding hundreds of key literals nor
// plans it again at every execution, and the store does not render those literals. A statement
// is prepared on every pooled connection that runs it (database/sql prepares it on a connection
// at its first use there) and keyed by its text: statements are built from a fixed set of
// shapes (a list, its keyset direction, whether a cursor is set, which of the few fixed sets
// of columns it reads), so the set stays small.

// prepared is one statement and when it is to be prepared again.
type prepared struct {
	mu   sync.Mutex
	stmt *sql.Stmt
	dies time.Time
}

// current returns the live statement, preparing a new one when there is none or it is too old.
func (p *prepared) current(ctx context.Context, s *Store, query string) (*sql.Stmt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stmt != nil && time.Now().Before(p.dies) {
		return p.stmt, nil
	}
	stmt, err := s.DB.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if p.stmt != nil {
		// Queries still running on the old statement finish first: database/sql closes it on
		// the connections once they are done.
		p.stmt.Close()
	}
	p.stmt, p.dies = stmt, time.Now().Add(preparedLifetime())
	return stmt, nil
}

// preparedSet holds the store's prepared statements by text.
type preparedSet struct {
	mu sync.Mutex
	m  map[string]*prepared
}

// get returns the statement of query.
func (ps *preparedSet) get(query string) *prepared {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p := ps.m[query]
	if p == nil {
		if ps.m == nil {
			ps.m = map[string]*prepared{}
		}
		p = &prepared{}
		ps.m[query] = p
	}
	return p
}

// scanPrepared runs query (with $n parameters) as a prepared statement and scans its rows into
// dest as bun scans a query's (the row types of model_scan.go through typed destinations); no
// rows is not an error.
func (s *Store) scanPrepared(ctx context.Context, query string, dest any, args ...any) error {
	rows, err := s.queryPrepared(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if ok, err := scanModel(rows, dest); ok {
		return err
	}
	if err := s.DB.ScanRows(ctx, rows, dest); err != nil && !isNoRows(err) {
		return err
	}
	return nil
}

// queryPrepared runs query (with $n parameters) as a prepared statement and returns its rows.
func (s *Store) queryPrepared(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	stmt, err := s.prepared.get(query).current(ctx, s, query)
	if err != nil {
		return nil, err
	}
	s.statements.ran(ctx, s.Statement(query, args...))
	return stmt.QueryContext(ctx, args...)
}

// numbered turns the ? placeholders of q into $1, $2, … in order. q must hold no other ?.
func numbered(q string) string {
	var b strings.Builder
	n := 0
	for {
		i := strings.IndexByte(q, '?')
		if i < 0 {
			b.WriteString(q)
			return b.String()
		}
		n++
		b.WriteString(q[:i])
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
		q = q[i+1:]
	}
}

// byteaArray renders byte strings (as raw bytes, or held in strings as loader keys carry them)
// as the text of a bytea[] parameter.
func byteaArray[T ~string | ~[]byte](vs []T) string {
	return byteaArrayOf(vs, func(v T) T { return v })
}

// byteaArrayOf renders one byte string of each key (one column of a composite key) as the text
// of a bytea[] parameter.
func byteaArrayOf[K any, T ~string | ~[]byte](keys []K, part func(K) T) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 0, 2+len(keys)*72) // a 32-byte hash and its quoting
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		v := part(k)
		b = append(b, `"\\x`...)
		for j := 0; j < len(v); j++ {
			b = append(b, digits[v[j]>>4], digits[v[j]&0x0f])
		}
		b = append(b, '"')
	}
	return string(append(b, '}'))
}

// keySlot is the width of one key in a packed key parameter (packKeys): a length byte, then the
// key padded to 32 bytes.
const keySlot = 33

// packKeys packs each column of keys (a byte string of each key that parts gives: a hash, or
// empty) into a bytea parameter of fixed-width slots, which a statement reads back with
// packedKey. With hundreds of keys this costs PostgreSQL a small fraction of a bytea[]
// parameter, whose every element it parses on its own (about 0.4 µs each: 0.64 ms for the three
// key columns and the event kinds of 400 transactions as arrays, against 40 µs packed).
func packKeys[K any](keys []K, parts ...func(K) []byte) ([][]byte, error) {
	out := make([][]byte, len(parts))
	for c, part := range parts {
		b := make([]byte, len(keys)*keySlot)
		for i, k := range keys {
			v := part(k)
			if len(v) >= keySlot {
				return nil, fmt.Errorf("db: a key of %d bytes does not fit a slot of %d", len(v), keySlot-1)
			}
			b[i*keySlot] = byte(len(v))
			copy(b[i*keySlot+1:], v)
		}
		out[c] = b
	}
	return out, nil
}

// packedKey is the SQL expression of the key in slot i (0-based) of the packed parameter p.
func packedKey(p, i string) string {
	return fmt.Sprintf("substring(%[1]s FROM %[2]s*%[3]d+2 FOR get_byte(%[1]s, %[2]s*%[3]d))", p, i, keySlot)
}

// txKeyArrays renders the tx_id, index_block_hash and microblock_hash of transaction rows as three
// bytea[] parameters, the columns a statement unnests together.
func txKeyArrays(keys []TxKey) (ids, blocks, microblocks string) {
	return byteaArrayOf(keys, func(k TxKey) string { return k.TxID }),
		byteaArrayOf(keys, func(k TxKey) string { return k.IndexBlockHash }),
		byteaArrayOf(keys, func(k TxKey) string { return k.MicroblockHash })
}

// textArray renders strings as the text of a text[] parameter, each quoted so that commas,
// braces, quotes and backslashes (a BRC-20 ticker may hold any of them) stay inside it.
func textArray(vs []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, r := range []byte(v) {
			if r == '"' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(r)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// PreparedStatements are the fixed reads the store runs as prepared statements, by name, with
// $1 a principal ($1::text) and, for pages, $2 the limit, $3 the offset ($2::bigint, $3::bigint)
// and $4 a height ($4::integer), for a balance $2 a height ($2::integer), for transfers $2 to $7
// the chain positions of the first and the last transaction of a page ($2::integer …
// $7::integer): plan checks explain them beside the statements the reads run.
func PreparedStatements() map[string]string {
	return map[string]string{
		"tip-balance":                            tipBalanceSQL,
		"historical-balance":                     historicalBalanceSQL,
		"principal-events":                       principalEventsSQL,
		"principal-events-anchored":              principalEventsAnchoredSQL,
		"principal-transfers":                    principalTransfersSQL[transferKinds],
		"transfers-page":                         principalTxPageSQL[txPageTip],
		"transfers-page-unanchored":              principalTxPageSQL[txPageUnanchored],
		"transfers-page-unanchored-positions":    unanchoredTxPositionsSQL,
		"transfers-page-up-to":                   principalTxPageSQL[txPageUpTo],
		"summaries-page":                         summaryTxPageSQL,
		"summaries-page-anchored":                summaryTxAnchoredPageSQL,
		"principal-txs-first":                    principalTxsFirstSQL(false, AllTxColumns),
		"principal-txs-first-reverse":            principalTxsFirstSQL(true, AllTxColumns),
		"contract-events-by-position":            contractEventsSQL[false],
		"contract-events-by-position-unanchored": contractEventsSQL[true],
	}
}

// The SELECT … FROM of the models that prepared reads return whole, rendered by bun once: their
// column lists follow the models. Reads append their WHERE with $n parameters.
var (
	renderer            = bun.NewDB(nil, pgdialect.New())
	chainTipSelect      = renderer.NewSelect().Model((*ChainTip)(nil)).String()
	blockSelect         = renderer.NewSelect().Model((*Block)(nil)).String()
	burnBlockSelect     = renderer.NewSelect().Model((*BurnBlock)(nil)).String()
	txSelect            = renderer.NewSelect().Model((*Tx)(nil)).String()
	mempoolTxSelect     = renderer.NewSelect().Model((*MempoolTx)(nil)).String()
	contractsByIDSelect = renderer.NewSelect().Model((*SmartContract)(nil)).DistinctOn("contract_id").String()
	minerRewardSelect   = renderer.NewSelect().Model((*MinerReward)(nil)).String()
	microblockSelect    = renderer.NewSelect().Model((*Microblock)(nil)).String()
	// A microblock's rows, one per anchor block that confirmed it (microblockByHashSelect), or one
	// per place in its parent's stream (streamedMicroblockSelect).
	microblockByHashSelect   = renderer.NewSelect().Model((*Microblock)(nil)).DistinctOn("microblock_hash").String()
	streamedMicroblockSelect = renderer.NewSelect().Model((*Microblock)(nil)).
					DistinctOn("parent_index_block_hash, microblock_sequence, microblock_hash").String()
	chainTipSQL = chainTipSelect + " WHERE id"
)

// first is the first row of a lookup, or nil when it found none.
func first[T any](rows []*T, err error) (*T, error) {
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}
