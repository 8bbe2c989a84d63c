package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// A fault window is when one fault was injected, from its start to the service's recovery.
type faultWindow struct {
	fault      string
	start, end time.Time
	note       string
	err        string // the fault could not be injected or the service did not recover
}

type faultLog struct {
	mu      sync.Mutex
	windows []faultWindow
}

func (f *faultLog) add(w faultWindow) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.windows = append(f.windows, w)
}

// within reports whether a request from began to ended overlaps a fault window (extended by
// windowGrace).
func (f *faultLog) within(began, ended time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.windows {
		if !ended.Before(w.start) && !began.After(w.end.Add(windowGrace)) {
			return true
		}
	}
	return false
}

// The faults, each a way production breaks.
const (
	faultKillAPI     = "SIGKILL of the API process"
	faultKillIngest  = "SIGKILL of the ingesting process"
	faultRestartPG   = "PostgreSQL primary restart (immediate)"
	faultKillListen  = "LISTEN connections terminated"
	faultPauseReplay = "replica replay paused"
)

// injectFaults injects a fault at random moments (mean o.faultEvery apart) until ctx ends,
// each kind in turn in a shuffled order, and logs each one's window.
func (r *chaosRun) injectFaults(ctx context.Context) {
	rnd := mrand.New(mrand.NewPCG(r.o.seed, 0xfa17))
	kinds := []string{faultKillAPI, faultKillIngest, faultRestartPG, faultKillListen}
	if r.replica != nil {
		kinds = append(kinds, faultPauseReplay)
	}
	var order []string
	for {
		wait := time.Duration(float64(r.o.faultEvery) * (0.5 + rnd.Float64()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if len(order) == 0 {
			order = slices.Clone(kinds)
			rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		kind := order[0]
		order = order[1:]
		w := faultWindow{fault: kind, start: time.Now()}
		note, err := r.inject(context.WithoutCancel(ctx), kind, rnd)
		if err == nil {
			// Recovered once the API answers a read from the database again.
			err = awaitOK(context.WithoutCancel(ctx), r.apiURL+"/extended/v1/block?limit=1", time.Minute)
		}
		w.end, w.note = time.Now(), note
		if err != nil {
			w.err = err.Error()
		}
		r.faults.add(w)
		r.log.Info("fault", "fault", kind, "start", w.start.Format(time.TimeOnly+".000"), "end", w.end.Format(time.TimeOnly+".000"),
			"window", w.end.Sub(w.start).Round(time.Millisecond), "note", note, "err", w.err)
	}
}

// inject injects one fault and returns once it is over (the process or server restarted, the
// replay resumed).
func (r *chaosRun) inject(ctx context.Context, kind string, rnd *mrand.Rand) (string, error) {
	switch kind {
	case faultKillAPI:
		r.api.kill()
		return "", r.api.start(ctx)
	case faultKillIngest:
		r.ingest.kill()
		return "", r.ingest.start(ctx)
	case faultRestartPG:
		return "", r.primary.RestartImmediate()
	case faultKillListen:
		var n int
		err := queryRow(ctx, r.primary.URL("postgres"),
			`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%'`, &n)
		return fmt.Sprintf("%d connections", n), err
	case faultPauseReplay:
		pause := time.Duration(2000+rnd.IntN(4000)) * time.Millisecond
		var v any
		if err := queryRow(ctx, r.replica.URL("postgres"), `SELECT pg_wal_replay_pause()::text`, &v); err != nil {
			return "", err
		}
		time.Sleep(pause)
		return "paused " + pause.Round(100*time.Millisecond).String(), queryRow(ctx, r.replica.URL("postgres"), `SELECT pg_wal_replay_resume()::text`, &v)
	}
	return "", fmt.Errorf("unknown fault %q", kind)
}

func queryRow(ctx context.Context, dsn, query string, dest any, args ...any) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.QueryRow(ctx, query, args...).Scan(dest)
}

// An outcome is one request's: when it ran and how it ended.
type outcome struct {
	what         string // read or faucet
	began, ended time.Time
	status       int    // 0: no answer
	err          string // the transport error, or the GraphQL errors of a 200
}

type outcomeLog struct {
	mu   sync.Mutex
	list []outcome
}

// get requests url and logs the outcome; it returns the answer's status and body.
func (l *outcomeLog) get(ctx context.Context, client *http.Client, what, url string) (int, []byte) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil
	}
	return l.do(ctx, client, what, req)
}

func (l *outcomeLog) do(ctx context.Context, client *http.Client, what string, req *http.Request) (int, []byte) {
	o := outcome{what: what, began: time.Now()}
	resp, err := client.Do(req)
	var body []byte
	if err == nil {
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		o.status = resp.StatusCode
	}
	o.ended = time.Now()
	switch {
	case ctx.Err() != nil:
		return 0, nil // cut off by the end of the run
	case err != nil:
		o.err = err.Error()
	case strings.Contains(req.URL.Path, "/graphql") && strings.Contains(string(body), `"errors":`):
		o.err = "GraphQL errors: " + string(body[:min(len(body), 200)])
	}
	l.mu.Lock()
	l.list = append(l.list, o)
	l.mu.Unlock()
	return o.status, body
}

// faucetClient asks the STX faucet for payouts one after the other, each under a key of its
// own and to a recipient of its own, retrying each until it is answered 200.
type faucetClient struct {
	api  string
	node *faucetNode

	mu       sync.Mutex
	requests []*faucetRequest
}

type faucetRequest struct {
	key, recipient string
	attempts       int
	txIDs          map[string]bool // the txIds of its 200 answers
}

// run asks for a payout a second until ctx ends; the request under way then is retried (for
// up to a minute) until it is paid.
func (f *faucetClient) run(ctx context.Context, outcomes *outcomeLog) {
	client := &http.Client{Timeout: 30 * time.Second}
	for ctx.Err() == nil {
		q := &faucetRequest{key: newKey(), recipient: randomRecipient(), txIDs: map[string]bool{}}
		f.mu.Lock()
		f.requests = append(f.requests, q)
		f.mu.Unlock()
		for deadline := time.Now().Add(time.Minute); !f.attempt(client, q, outcomes) && time.Now().Before(deadline); {
			time.Sleep(300 * time.Millisecond)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// attempt sends q once; true when it was paid.
func (f *faucetClient) attempt(client *http.Client, q *faucetRequest, outcomes *outcomeLog) bool {
	req, err := http.NewRequest(http.MethodPost, f.api+"/extended/v1/faucets/stx?address="+q.recipient, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Idempotency-Key", q.key)
	q.attempts++
	status, body := outcomes.do(context.Background(), client, "faucet", req)
	if status != http.StatusOK {
		return false
	}
	var a struct {
		TxID string `json:"txId"`
	}
	if json.Unmarshal(body, &a) != nil || a.TxID == "" {
		return false
	}
	f.mu.Lock()
	q.txIDs[a.TxID] = true
	f.mu.Unlock()
	return true
}
