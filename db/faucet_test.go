package db_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// Concurrent reservations from two pools (two API processes) for one address never exceed the
// quota; the refused ones learn how long to wait.
func TestReserveFaucetRequestConcurrent(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	stores := []*db.Store{db.Open(url, db.PoolOptions{MaxOpen: 4}), db.Open(url, db.PoolOptions{MaxOpen: 4})}
	for _, s := range stores {
		defer s.Close()
	}
	quotas := []db.FaucetQuota{{Max: 5, Window: 5 * time.Minute}, {ByIP: true, Max: 100, Window: time.Minute}}
	var mu sync.Mutex
	var granted, refused int
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, wait, err := stores[i%2].ReserveFaucetRequest(context.Background(),
				db.FaucetReservation{Currency: "stx", Address: "ST1ADDR", IP: "192.0.2.1"}, quotas)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				t.Error(err)
			case id > 0 && wait == 0:
				granted++
			case id == 0 && wait > 4*time.Minute && wait <= 5*time.Minute:
				refused++
			default:
				t.Errorf("id %d wait %v", id, wait)
			}
		}()
	}
	wg.Wait()
	if granted != 5 || refused != 19 {
		t.Errorf("%d granted, %d refused; want 5 and 19", granted, refused)
	}
	// A cancelled reservation frees its place; stacking payouts have their own quota.
	s := stores[0]
	if err := s.CancelFaucetRequest(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	stacking := append(quotas, db.FaucetQuota{StackingOnly: true, Max: 1, Window: 48 * time.Hour})
	r := db.FaucetReservation{Currency: "stx", Address: "ST1ADDR", Stacking: true}
	if id, wait, err := s.ReserveFaucetRequest(context.Background(), r, stacking); err != nil || id == 0 || wait != 0 {
		t.Fatalf("after a cancel: %d %v %v", id, wait, err)
	}
	r.Address = "ST2OTHER"
	if id, _, _ := s.ReserveFaucetRequest(context.Background(), r, stacking); id == 0 {
		t.Fatal("first stacking request of another address refused")
	}
	if id, wait, err := s.ReserveFaucetRequest(context.Background(), r, stacking); err != nil || id != 0 || wait < 47*time.Hour {
		t.Errorf("second stacking request: %d %v %v, want a wait of about 48h", id, wait, err)
	}
}
