// Package migrations embeds the SQL schema of stxgraph, applied with bun/migrate.
package migrations

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sort"

	"github.com/uptrace/bun/migrate"
)

//go:embed *.sql
var files embed.FS

// New returns the embedded migrations, in file-name order.
func New() (*migrate.Migrations, error) {
	m := migrate.NewMigrations()
	return m, m.Discover(files)
}

// Hash identifies the schema: a digest of every migration's name and contents. Test helpers use it
// to reuse a migrated template database until the schema changes.
func Hash() (string, error) {
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return "", err
		}
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
