package db

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// preparedMaxAge bounds how long a prepared statement lives. The store's sessions run prepared
// statements on their generic plan (checkClient), which PostgreSQL keeps for as long as the
// statement lives, even after the tables it was planned on have grown by orders of magnitude (a
// bulk import with no ANALYZE since); preparing again every minute bounds the time such a plan
// can serve.
const preparedMaxAge = time.Minute

// prepared is one statement prepared on every pooled connection that runs it (database/sql
// prepares it on a connection at its first use there), and prepared again after preparedMaxAge.
// The zero value is ready; each prepared value always runs the same query.
type prepared struct {
	mu   sync.Mutex
	stmt *sql.Stmt
	born time.Time
}

// current returns the live statement, preparing a new one when there is none or it is too old.
func (p *prepared) current(ctx context.Context, s *Store, query string) (*sql.Stmt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stmt != nil && time.Since(p.born) < preparedMaxAge {
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
	p.stmt, p.born = stmt, time.Now()
	return stmt, nil
}

// scan runs query with args and scans its rows into dest as bun scans a query's.
func (p *prepared) scan(ctx context.Context, s *Store, query string, dest any, args ...any) error {
	stmt, err := p.current(ctx, s, query)
	if err != nil {
		return err
	}
	s.statements.n.Add(1)
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return s.DB.ScanRows(ctx, rows, dest)
}

// PreparedStatements are the reads the store runs as prepared statements, outside bun's query
// hooks, by name, with $1 a principal ($1::text) and, for pages, $2 the limit, $3 the offset
// ($2::bigint, $3::bigint) and $4 a height ($4::integer), for a balance $2 a height
// ($2::integer), for transfers $2, $3 and $4 the tx_id, index_block_hash and microblock_hash of
// transactions ($2::bytea[], $3::bytea[], $4::bytea[]): plan checks explain them beside the
// hooked ones.
func PreparedStatements() map[string]string {
	return map[string]string{"tip-balance": tipBalanceSQL, "historical-balance": historicalBalanceSQL,
		"principal-events": principalEventsSQL, "principal-transfers": principalTransfersSQL,
		"transfers-page": principalTxPageSQL[txPageTip].page, "transfers-page-unanchored": principalTxPageSQL[txPageUnanchored].page,
		"transfers-page-up-to": principalTxPageSQL[txPageUpTo].page,
		"principal-txs-first":  principalTxsFirstSQL[0], "principal-txs-first-reverse": principalTxsFirstSQL[1]}
}
