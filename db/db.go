// Package db is stxgraph's chain storage: bun models, the embedded migrations, the Store with the
// chain reads, and the Writer that ingestion stores chain data through. The other stores sit
// beside it and use its Store: db/brc20store (BRC-20 state), db/notices (the notice log and its
// listener) and faucet/pgstore (faucet rows). Nothing here knows HTTP or GraphQL.
package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/migrate"
	"github.com/uptrace/bun/schema"

	"github.com/stxgraph/stxgraph/db/migrations"
)

// Store is the narrow storage API the rest of stxgraph calls.
type Store struct {
	DB *bun.DB
	// dsn is the URL the store was opened with ("" for a wrapped handle); migrations open their
	// own connections from it.
	dsn string

	// prepared are the reads run as prepared statements (prepared.go).
	prepared preparedSet

	statements *statementCount
}

// PoolOptions sizes the connection pool.
type PoolOptions struct {
	MaxOpen     int
	MaxIdleTime time.Duration
}

// DefaultMaxOpen is the pool size the service runs with unless told otherwise: two connections
// per core. Beside a PostgreSQL on the same cores, every backend beyond those costs more per
// statement while the throughput stays: on 2 cores the load benchmark's REST mix spent a fifth
// less PostgreSQL CPU a request with 4 connections than with 8 (balances a quarter less), at the
// same p99 and 5–10% more requests a second; 2 were no faster again and lengthened the tail.
// Each backend also plans every statement anew, so fewer of them warm up sooner after a start.
func DefaultMaxOpen() int { return 2 * runtime.NumCPU() }

// readBuffer is each connection's read buffer. With the driver's 4 KiB a page of 20 blocks'
// transaction ids took four reads; PostgreSQL sends in 8 KiB pieces, so a larger buffer takes
// what has arrived in one read (alternated with 4 KiB, a GraphQL front page cost the server
// 6.6–6.7 ms of CPU against 7.4–10.3).
const readBuffer = 32 << 10

// Open connects to the database at dsn (a postgres:// URL) without touching its schema.
func Open(dsn string, pool PoolOptions) *Store {
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn), pgdriver.WithBufferSize(readBuffer), checkClient, guardConnections))
	if pool.MaxOpen > 0 {
		sqldb.SetMaxOpenConns(pool.MaxOpen)
		sqldb.SetMaxIdleConns(pool.MaxOpen)
	}
	if pool.MaxIdleTime > 0 {
		sqldb.SetConnMaxIdleTime(pool.MaxIdleTime)
	}
	s := NewStore(sqldb)
	s.dsn = dsn
	return s
}

// checkClient sets the session up for the service's statements. The server checks every second,
// while it runs a statement, that the client is still connected: the driver drops the
// connection when a caller's context ends, and PostgreSQL would otherwise run (or wait for a
// lock) to the end for nobody. JIT compilation is off: every statement here reads or writes a
// bounded set of rows by index, yet on a large chain the planner's cost estimates of a custom
// plan pass jit_above_cost, and compiling then takes tens of milliseconds for a statement that
// runs in one. Prepared statements (prepared.go; every other statement is sent as text) take
// their generic plan from the first execution: each is written as index probes whose cost no
// parameter value changes, and under plan_cache_mode=auto the planner may instead keep planning
// a custom plan at every execution, which costs several times running it.
func checkClient(conf *pgdriver.Config) {
	params := map[string]any{"client_connection_check_interval": "1s", "jit": "off", "plan_cache_mode": "force_generic_plan"}
	for k, v := range conf.ConnParams {
		params[k] = v
	}
	conf.ConnParams = params
}

// NewStore wraps an already open database handle (tests use it with pgtestdb databases).
func NewStore(sqldb *sql.DB) *Store {
	s := &Store{DB: bun.NewDB(sqldb, pgdialect.New()), statements: &statementCount{}}
	s.DB.AddQueryHook(s.statements)
	return s
}

// Statements counts the SQL statements the store has run, for the statements-per-request
// figure of /metrics.
func (s *Store) Statements() int64 { return s.statements.n.Load() }

// Observe calls fn with every statement the store runs from now on, through bun or prepared, and
// the context it ran under (tests count and explain the statements of a read). It replaces the
// observer set before.
func (s *Store) Observe(fn func(ctx context.Context, st Statement)) { s.statements.observe.Store(&fn) }

// Statement is one statement the store ran: bun's with its arguments written in, or a prepared
// one with its parameters ($1, $2, …) in Args.
type Statement struct {
	Query string
	Args  []any
	gen   schema.QueryGen
}

// Statement is query as a prepared statement with args as its parameters.
func (s *Store) Statement(query string, args ...any) Statement {
	return Statement{Query: query, Args: args, gen: s.DB.QueryGen()}
}

// Text is the statement with its parameters written in as literals, as bun writes arguments.
func (st Statement) Text() string {
	q := st.Query
	for i := len(st.Args); i >= 1; i-- { // $12 before $1
		q = strings.ReplaceAll(q, "$"+strconv.Itoa(i), st.Literal(i-1))
	}
	return q
}

// Literal is the i-th parameter as an SQL literal.
func (st Statement) Literal(i int) string { return string(st.gen.AppendQuery(nil, "?", st.Args[i])) }

// statementCount counts the statements the store runs, bun's (a query hook) and the prepared ones
// (scanPrepared), and shows them to an observer.
type statementCount struct {
	n       atomic.Int64
	observe atomic.Pointer[func(context.Context, Statement)]
}

func (c *statementCount) ran(ctx context.Context, st Statement) {
	c.n.Add(1)
	if fn := c.observe.Load(); fn != nil {
		(*fn)(ctx, st)
	}
}

func (c *statementCount) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}
func (c *statementCount) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	c.ran(ctx, Statement{Query: e.Query})
}

// Close closes the pool.
func (s *Store) Close() error { return s.DB.Close() }

// EnsureDatabase creates the database named in dsn when it does not exist, by connecting to the
// server's "postgres" database.
func EnsureDatabase(ctx context.Context, dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("parse database URL: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" {
		return errors.New("database URL names no database")
	}
	admin := *u
	admin.Path = "/postgres"
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin.String())))
	defer sqldb.Close()
	var exists bool
	if err := sqldb.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("connect to PostgreSQL at %s: %w", u.Host, err)
	}
	if exists {
		return nil
	}
	_, err = sqldb.ExecContext(ctx, "CREATE DATABASE "+pgdriverQuoteIdent(name))
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) && pgErr.Field('C') == "42P04" { // created concurrently
		return nil
	}
	return err
}

func pgdriverQuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func migrator(bdb *bun.DB) (*migrate.Migrator, error) {
	ms, err := migrations.New()
	if err != nil {
		return nil, err
	}
	return migrate.NewMigrator(bdb, ms, migrate.WithMarkAppliedOnSuccess(true)), nil
}

// migrationDB is where migrations run: for a store opened from a URL, connections without the
// driver's read timeout, because a backfill on a large chain, or the wait for another process's
// migration lock, may take minutes (the caller's context bounds it instead).
func (s *Store) migrationDB() (bdb *bun.DB, closeDB func()) {
	if s.dsn == "" {
		return s.DB, func() {}
	}
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(s.dsn), pgdriver.WithReadTimeout(0), checkClient))
	// The work an import deferred runs on restoreWorkers connections, beside the one holding
	// the migration lock and the one holding the chain tip lock.
	sqldb.SetMaxOpenConns(restoreWorkers + 2)
	return bun.NewDB(sqldb, pgdialect.New()), func() { sqldb.Close() }
}

// Migrate applies every pending migration under the migration lock.
func (s *Store) Migrate(ctx context.Context) (applied []string, err error) {
	return s.withMigrator(ctx, func(m *migrate.Migrator) (*migrate.MigrationGroup, error) { return m.Migrate(ctx) })
}

// Rollback reverts the last group of migrations.
func (s *Store) Rollback(ctx context.Context) (reverted []string, err error) {
	return s.withMigrator(ctx, func(m *migrate.Migrator) (*migrate.MigrationGroup, error) { return m.Rollback(ctx) })
}

// MigrationLockKey is the PostgreSQL advisory-lock key that serialises migrations ("stxgraph"
// in ASCII): processes migrating one database at once take turns.
const MigrationLockKey int64 = 0x7374786772617068

// withMigrator runs one migrator action under a session advisory lock held on a dedicated
// connection. PostgreSQL releases it when the session ends, so a process killed mid-migration
// leaves nothing behind (bun's own lock is a table row that outlives its holder; a row left by
// older versions is ignored).
func (s *Store) withMigrator(ctx context.Context, run func(*migrate.Migrator) (*migrate.MigrationGroup, error)) ([]string, error) {
	mdb, closeDB := s.migrationDB()
	defer closeDB()
	m, err := migrator(mdb)
	if err != nil {
		return nil, err
	}
	conn, err := mdb.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", MigrationLockKey); err != nil {
		return nil, fmt.Errorf("take the migration lock: %w", err)
	}
	defer func() {
		// Unlock with a fresh context: ctx may be done, and the lock must not outlive the call
		// on a pooled connection.
		if _, err := conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(?)", MigrationLockKey); err != nil {
			slog.Warn("could not release the migration lock; closing its connection", "err", err)
			conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck // drops the session, and the lock with it
		}
	}()
	if err := m.Init(ctx); err != nil {
		return nil, err
	}
	// Migrations may name the indexes a bulk import deferred, and a process that migrates is
	// about to use the database: an import killed before it completed its deferred upkeep is
	// completed first.
	if err := completeUpkeep(ctx, mdb); err != nil {
		return nil, err
	}
	g, err := run(m)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(g.Migrations))
	for _, mg := range g.Migrations {
		names = append(names, mg.Name)
	}
	return names, nil
}

// MigrationStatus lists every known migration and whether it is applied.
type MigrationStatus struct {
	Name    string
	Applied bool
}

// Status reports the applied and pending migrations.
func (s *Store) Status(ctx context.Context) ([]MigrationStatus, error) {
	m, err := migrator(s.DB)
	if err != nil {
		return nil, err
	}
	if err := m.Init(ctx); err != nil {
		return nil, err
	}
	ms, err := m.MigrationsWithStatus(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]MigrationStatus, 0, len(ms))
	for _, mg := range ms {
		out = append(out, MigrationStatus{Name: mg.Name, Applied: mg.IsApplied()})
	}
	return out, nil
}
