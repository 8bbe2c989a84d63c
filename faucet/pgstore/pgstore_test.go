package pgstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/faucet/pgstore"
)

// Concurrent reservations from two pools (two API processes) for one address never exceed the
// quota; the refused ones learn how long to wait.
func TestReserveConcurrent(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	stores := []*db.Store{db.Open(url, db.PoolOptions{MaxOpen: 4}), db.Open(url, db.PoolOptions{MaxOpen: 4})}
	for _, s := range stores {
		defer s.Close()
	}
	quotas := []pgstore.Quota{{Max: 5, Window: 5 * time.Minute}, {ByIP: true, Max: 100, Window: time.Minute}}
	var mu sync.Mutex
	var granted, refused int
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := pgstore.New(stores[i%2]).Reserve(context.Background(),
				pgstore.Reservation{Currency: "stx", Address: "ST1ADDR", IP: "192.0.2.1", Lease: time.Minute}, quotas)
			id, wait := res.ID, res.Wait
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
	s := pgstore.New(stores[0])
	if err := s.Cancel(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	stacking := append(quotas, pgstore.Quota{StackingOnly: true, Max: 1, Window: 48 * time.Hour})
	r := pgstore.Reservation{Currency: "stx", Address: "ST1ADDR", Stacking: true, Lease: time.Minute}
	if res, err := s.Reserve(context.Background(), r, stacking); err != nil || res.ID == 0 || res.Wait != 0 {
		t.Fatalf("after a cancel: %+v %v", res, err)
	}
	r.Address = "ST2OTHER"
	if res, _ := s.Reserve(context.Background(), r, stacking); res.ID == 0 {
		t.Fatal("first stacking request of another address refused")
	}
	if res, err := s.Reserve(context.Background(), r, stacking); err != nil || res.ID != 0 || res.Wait < 47*time.Hour {
		t.Errorf("second stacking request: %+v %v, want a wait of about 48h", res, err)
	}
}

// A request id names one request: seen again it gives the earlier request (signed or still
// leased) instead of a new reservation; an unsigned one whose lease ran out is forgotten, and
// neither it nor its quota place stays.
func TestRequestID(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	s := pgstore.New(store)
	ctx := context.Background()
	quota := []pgstore.Quota{{Max: 1, Window: time.Hour}}
	r := pgstore.Reservation{Currency: "btc", Address: "bcrt1qaddr", RequestID: "k1", Lease: time.Minute}
	first, err := s.Reserve(ctx, r, quota)
	if err != nil || first.ID == 0 {
		t.Fatalf("%+v %v", first, err)
	}
	again, err := s.Reserve(ctx, r, quota)
	if err != nil || again.ID != 0 || again.Earlier == nil || again.Earlier.ID != first.ID || !again.Earlier.Leased || again.Earlier.TxID != "" {
		t.Fatalf("leased repeat: %+v %v", again, err)
	}
	if err := s.RecordPayout(ctx, first.ID, "ab12", "0100"); err != nil {
		t.Fatal(err)
	}
	signed, err := s.Reserve(ctx, r, quota)
	if err != nil || signed.Earlier == nil || signed.Earlier.TxID != "ab12" || signed.Earlier.TxRaw != "0100" || signed.Earlier.Address != r.Address {
		t.Fatalf("signed repeat: %+v %v", signed, err)
	}

	// An unsigned reservation whose lease ran out: the retry reserves anew.
	dead := pgstore.Reservation{Currency: "btc", Address: "bcrt1qdead", RequestID: "k2", Lease: time.Millisecond}
	if res, err := s.Reserve(ctx, dead, quota); err != nil || res.ID == 0 {
		t.Fatalf("%+v %v", res, err)
	}
	time.Sleep(10 * time.Millisecond)
	dead.Lease = time.Minute
	retried, err := s.Reserve(ctx, dead, quota)
	if err != nil || retried.ID == 0 || retried.Earlier != nil || retried.Wait != 0 {
		t.Fatalf("retry after the lease: %+v %v", retried, err)
	}
}
