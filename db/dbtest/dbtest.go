// Package dbtest gives each test its own PostgreSQL database, cloned from a template that the
// embedded migrations built once (pgtestdb). It talks to the real server at $PGHOST:$PGPORT
// (default 127.0.0.1:5432, user postgres), which .ci/run starts when it is down.
package dbtest

import (
	"context"
	"database/sql"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // pgtestdb administers databases through database/sql "pgx"
	"github.com/peterldowns/pgtestdb"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/migrations"
)

// New returns a Store on a fresh, fully migrated database that is dropped when the test passes
// (and kept, with its URL logged, when it fails).
func New(tb testing.TB) *db.Store {
	tb.Helper()
	return db.Open(URL(tb), db.PoolOptions{MaxOpen: 8})
}

// URL returns the connection URL of a fresh, fully migrated database.
func URL(tb testing.TB) string {
	tb.Helper()
	return pgtestdb.Custom(tb, Config(), migrator{}).URL()
}

// Config is the pgtestdb configuration for the local server.
func Config() pgtestdb.Config {
	return pgtestdb.Config{
		DriverName: "pgx",
		Host:       env("PGHOST", "127.0.0.1"),
		Port:       env("PGPORT", "5432"),
		User:       env("PGUSER", "postgres"),
		Password:   os.Getenv("PGPASSWORD"),
		Database:   "postgres",
		Options:    "sslmode=disable",
	}
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

type migrator struct{}

func (migrator) Hash() (string, error) { return migrations.Hash() }

func (migrator) Migrate(ctx context.Context, sqldb *sql.DB, _ pgtestdb.Config) error {
	_, err := db.NewStore(sqldb).Migrate(ctx)
	return err
}
