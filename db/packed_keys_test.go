package db_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// Keys packed by PackKeys read back in PostgreSQL through PackedKey as they were, in order: empty
// keys, short ones and 32-byte hashes alike; a key too long for a slot is refused.
func TestPackedKeysReadBack(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	hash := bytes.Repeat([]byte{0xa7}, 32)
	keys := [][]byte{{}, {0x01}, hash, bytes.Repeat([]byte{0x00}, 32), {0x00}, hash[:20]}
	packed, err := db.PackKeys(keys)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	err = store.DB.NewRaw("SELECT "+db.PackedKey("?0::bytea", "g.i")+" FROM generate_series(0, length(?0::bytea) / ?1 - 1) AS g(i) ORDER BY g.i",
		packed, db.KeySlot).Scan(context.Background(), &got)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(keys) {
		t.Fatalf("%d keys read back, %d packed", len(got), len(keys))
	}
	for i := range keys {
		if !bytes.Equal(got[i], keys[i]) {
			t.Errorf("key %d: read back %x, packed %x", i, got[i], keys[i])
		}
	}
	if _, err := db.PackKeys([][]byte{make([]byte, db.KeySlot)}); err == nil {
		t.Errorf("a key of %d bytes packed", db.KeySlot)
	}
}
