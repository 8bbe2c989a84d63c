package main

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/db/dbtest"
)

// deliverOnce posts one message until it is answered 200, as the node retries it.
func deliverOnce(t *testing.T, client *http.Client, url string, payload []byte) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		resp, err := client.Post(url, "application/json", bytes.NewReader(payload))
		if err != nil {
			t.Errorf("POST %s: %v", url, err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK:
			return
		case resp.StatusCode != http.StatusInternalServerError || attempt > 20:
			t.Errorf("POST %s: status %d: %s", url, resp.StatusCode, body)
			return
		}
	}
}

// A node that delivers every message several times, some copies at once, leaves the chain as
// one delivery of each does.
func TestEventServerDuplicates(t *testing.T) {
	t.Parallel()
	want := uninterrupted(t)
	url := dbtest.URL(t)
	_, events := startServeOn(t, url)
	n := newNode(t, crashFixture)
	client := &http.Client{}
	for _, rec := range n.records {
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				deliverOnce(t, client, events+rec.Path, rec.Payload)
			}()
		}
		wg.Wait()
		deliverOnce(t, client, events+rec.Path, rec.Payload)
		if t.Failed() {
			t.FailNow()
		}
	}
	if got := digestOf(t, url); got != want {
		t.Fatalf("with every message delivered four times the canonical state differs.\ngot:\n%s\nwant:\n%s", got, want)
	}
}

// A block that arrives before its parent (the node's retry of the parent still pending) is
// either refused for a retry or kept until the parent comes; once the node has delivered both,
// the chain is as an in-order delivery leaves it.
func TestEventServerBlockBeforeParent(t *testing.T) {
	t.Parallel()
	want := uninterrupted(t)
	url := dbtest.URL(t)
	_, events := startServeOn(t, url)
	n := newNode(t, crashFixture)
	client := &http.Client{}
	var blocks []int
	for i, rec := range n.records {
		if rec.Path == "/new_block" {
			blocks = append(blocks, i)
		}
	}
	// Swap two blocks in the middle of the chain: the child is posted first (any answer is
	// allowed but 4xx), then the parent, then the child again as the node retries it.
	a, b := blocks[len(blocks)/2], blocks[len(blocks)/2+1]
	for i, rec := range n.records {
		switch i {
		case a:
			child := n.records[b]
			resp, err := client.Post(events+child.Path, "application/json", bytes.NewReader(child.Payload))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusInternalServerError {
				t.Fatalf("a block before its parent: status %d: %s; want 200 or a 500 the node retries", resp.StatusCode, body)
			}
			deliverOnce(t, client, events+rec.Path, rec.Payload)
		case b:
			deliverOnce(t, client, events+rec.Path, rec.Payload)
		default:
			deliverOnce(t, client, events+rec.Path, rec.Payload)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	if got := digestOf(t, url); got != want {
		t.Fatalf("with a block posted before its parent the canonical state differs.\ngot:\n%s\nwant:\n%s", got, want)
	}
}
