package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
)

// crashFixture has forks and burn blocks, so that kills land between and inside reorgs.
const crashFixture = "stacks/mainnet-reorg-scenario1.tsv.gz"

// digestOf returns the canonical-state digest of the database at url, as `stxgraph verify
// --digest` prints it.
func digestOf(t *testing.T, url string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"verify", "--digest", "--database-url", url}, &stdout, &stderr); code != 0 {
		t.Fatalf("verify --digest: exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	i := strings.LastIndex(out, "digest ")
	if i < 0 {
		t.Fatalf("verify --digest printed no digest: %s", out)
	}
	return out
}

// uninterrupted is the digest of the fixture imported in one run.
func uninterrupted(t *testing.T) string {
	t.Helper()
	url := dbtest.URL(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"import-events", "--file", fixtures.Path(t, crashFixture), "--database-url", url}, &stdout, &stderr); code != 0 {
		t.Fatalf("import-events: exit %d: %s", code, stderr.String())
	}
	d := digestOf(t, url)
	if empty := digestOf(t, dbtest.URL(t)); d == empty {
		t.Fatalf("the imported chain has the digest of an empty database:\n%s", d)
	}
	return d
}

// startKilled starts cmd and SIGKILLs it after a random delay of up to max (it may finish first).
func startKilled(t *testing.T, cmd *exec.Cmd, rng *rand.Rand, max time.Duration) (killed bool) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return false
	case <-time.After(time.Duration(rng.Int64N(int64(max)))):
		cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // it may have just exited
		<-done
		return true
	}
}

// import-events killed at random points and run again ends in the same canonical state as one
// uninterrupted import.
func TestImportEventsSurvivesKills(t *testing.T) {
	t.Parallel()
	want := uninterrupted(t)
	url := dbtest.URL(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	kills := 0
	for i := 0; i < 30 && kills < 5; i++ {
		cmd := stxgraphCommand(ctx, "import-events", "--file", fixtures.Path(t, crashFixture), "--database-url", url)
		if startKilled(t, cmd, rng, 700*time.Millisecond) {
			kills++
		}
	}
	out, err := stxgraphCommand(ctx, "import-events", "--file", fixtures.Path(t, crashFixture), "--database-url", url).CombinedOutput()
	if err != nil {
		t.Fatalf("import-events after %d kills: %v\n%s", kills, err, out)
	}
	if got := digestOf(t, url); got != want {
		t.Fatalf("after %d kills the canonical state differs.\ngot:\n%s\nwant:\n%s", kills, got, want)
	}
	t.Logf("import-events killed %d times; final digest equal", kills)
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// eventSource posts the fixture's messages to an event observer in order, as a stacks-node does: a
// message is sent again until it is answered 200.
type eventSource struct {
	records []*tsv.Record
	next    int
	client  http.Client
}

func newNode(t *testing.T, fixture string) *eventSource {
	t.Helper()
	r, c, err := tsv.Open(fixtures.Path(t, fixture))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := &eventSource{client: http.Client{Timeout: 30 * time.Second}}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Payload != nil {
			n.records = append(n.records, rec)
		}
	}
	return n
}

// post delivers the next message once; ok is true when the observer accepted it.
func (n *eventSource) post(base string) (status int, err error) {
	rec := n.records[n.next]
	resp, err := n.client.Post(base+rec.Path, "application/json", bytes.NewReader(rec.Payload))
	if err != nil {
		return 0, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		n.next++
	} else if resp.StatusCode != http.StatusInternalServerError {
		return resp.StatusCode, fmt.Errorf("message %d (%s): status %d: %s", rec.ID, rec.Path, resp.StatusCode, body)
	}
	return resp.StatusCode, nil
}

func (n *eventSource) done() bool { return n.next == len(n.records) }

// The live event observer killed at random points while a node posts to it, and started again,
// ends in the same canonical state as one uninterrupted import: the node's retries neither
// lose nor double anything.
func TestEventServerSurvivesKills(t *testing.T) {
	t.Parallel()
	want := uninterrupted(t)
	url := dbtest.URL(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	n := newNode(t, crashFixture)
	kills := 0
	for round := 0; !n.done(); round++ {
		if round > 50 {
			t.Fatalf("delivered only %d of %d messages in 50 server runs", n.next, len(n.records))
		}
		apiPort, eventPort := freePort(t), freePort(t)
		cmd := stxgraphCommand(ctx, "serve", "--database-url", url, "--port", strconv.Itoa(apiPort),
			"--event-port", strconv.Itoa(eventPort))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		base := "http://127.0.0.1:" + strconv.Itoa(eventPort)
		waitFor(t, time.Minute, "the event observer to listen", func() bool {
			resp, err := http.Get(base + "/")
			if err == nil {
				resp.Body.Close()
			}
			return err == nil
		})
		// Kill the server after a random number of messages, while one may be in flight.
		budget := 1 + rng.IntN(25)
		killAt := make(chan struct{})
		go func(kill <-chan struct{}, delay time.Duration) {
			<-kill
			time.Sleep(delay)
			cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // it may be gone
		}(killAt, time.Duration(rng.Int64N(int64(40*time.Millisecond))))
		for i := 0; i < budget && !n.done(); i++ {
			if i == budget-1 && round < 8 {
				close(killAt)
				killAt = nil
				kills++
			}
			if _, err := n.post(base); err != nil && !isConnError(err) {
				t.Fatal(err)
			}
		}
		if killAt != nil {
			close(killAt)
			if !n.done() {
				kills++
			}
		}
		<-exited
	}
	if got := digestOf(t, url); got != want {
		t.Fatalf("after %d kills of the event observer the canonical state differs.\ngot:\n%s\nwant:\n%s", kills, got, want)
	}
	t.Logf("event observer killed %d times over %d messages; final digest equal", kills, len(n.records))
}

// isConnError reports a request that failed because the server went away.
func isConnError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}
