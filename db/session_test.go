package db_test

import (
	"context"
	"testing"

	"github.com/stxgraph/stxgraph/db/dbtest"
)

// The store's sessions check that their client is still there while a statement runs, never
// JIT-compile and run prepared statements on their generic plan (whatever the server's
// defaults): see checkClient.
func TestSessionSettings(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	for setting, want := range map[string]string{"jit": "off", "client_connection_check_interval": "1s", "plan_cache_mode": "force_generic_plan"} {
		var got string
		if err := store.DB.QueryRowContext(context.Background(), "SELECT current_setting(?)", setting).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q in the store's sessions, want %q", setting, got, want)
		}
	}
}
