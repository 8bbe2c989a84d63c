package db

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/uptrace/bun/driver/pgdriver"
)

// Notice kinds sent on EventsChannel.
const (
	NoticeBlock      = "block"
	NoticeMicroblock = "microblock"
	NoticeMempool    = "mempool"
)

// Notice is one announcement of committed chain data, as ingestion sends it on EventsChannel.
type Notice struct {
	Kind             string
	IndexBlockHash   []byte   // block
	BlockHeight      int32    // block, microblock
	Canonical        bool     // block
	MicroblockHashes [][]byte // microblock
	TxIDs            [][]byte // mempool
}

type noticeJSON struct {
	Kind             string   `json:"kind"`
	IndexBlockHash   string   `json:"index_block_hash"`
	BlockHeight      int32    `json:"block_height"`
	Canonical        bool     `json:"canonical"`
	MicroblockHashes []string `json:"microblock_hashes"`
	TxIDs            []string `json:"tx_ids"`
}

// ParseNotice decodes a notification payload.
func ParseNotice(payload string) (Notice, error) {
	var j noticeJSON
	if err := json.Unmarshal([]byte(payload), &j); err != nil {
		return Notice{}, fmt.Errorf("notice %q: %w", payload, err)
	}
	n := Notice{Kind: j.Kind, BlockHeight: j.BlockHeight, Canonical: j.Canonical}
	var err error
	if j.IndexBlockHash != "" {
		if n.IndexBlockHash, err = unhex(j.IndexBlockHash); err != nil {
			return n, err
		}
	}
	if n.MicroblockHashes, err = unhexAll(j.MicroblockHashes); err != nil {
		return n, err
	}
	n.TxIDs, err = unhexAll(j.TxIDs)
	return n, err
}

func unhex(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return nil, fmt.Errorf("notice hash %q: %w", s, err)
	}
	return b, nil
}

func unhexAll(ss []string) ([][]byte, error) {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		b, err := unhex(s)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// subscriberBuffer is how many notices a subscriber may lag behind before it misses some.
const subscriberBuffer = 256

// Listener holds the process's one LISTEN connection on EventsChannel and fans its notices out
// to in-process subscribers; every API process behind a load balancer runs its own, so each
// hears every commit.
type Listener struct {
	mu   sync.Mutex
	subs map[chan Notice]struct{}
	done bool
}

// Listen starts listening on EventsChannel until ctx ends. pgdriver reconnects (and re-LISTENs)
// by itself when the connection drops; notices sent meanwhile are lost, as NOTIFY does not queue.
func (s *Store) Listen(ctx context.Context) (*Listener, error) {
	ln := pgdriver.NewListener(s.DB)
	if err := ln.Listen(ctx, EventsChannel); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on %s: %w", EventsChannel, err)
	}
	l := &Listener{subs: map[chan Notice]struct{}{}}
	ch := ln.Channel()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	go l.run(ch)
	return l, nil
}

func (l *Listener) run(ch <-chan pgdriver.Notification) {
	for msg := range ch {
		n, err := ParseNotice(msg.Payload)
		if err != nil {
			slog.Warn("ignoring malformed chain notice", "err", err)
			continue
		}
		l.publish(n)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	for sub := range l.subs {
		close(sub)
		delete(l.subs, sub)
	}
}

// publish hands n to every subscriber without waiting: one slow WebSocket client must not hold
// up the others, so a subscriber whose buffer is full misses n.
func (l *Listener) publish(n Notice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for sub := range l.subs {
		select {
		case sub <- n:
		default:
			slog.Warn("subscriber too slow, chain notice dropped", "kind", n.Kind)
		}
	}
}

// Subscribe returns the notices committed from now on; the channel closes when ctx ends or the
// listener stops.
func (l *Listener) Subscribe(ctx context.Context) <-chan Notice {
	sub := make(chan Notice, subscriberBuffer)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		close(sub)
		return sub
	}
	l.subs[sub] = struct{}{}
	go func() {
		<-ctx.Done()
		l.mu.Lock()
		defer l.mu.Unlock()
		if _, ok := l.subs[sub]; ok {
			delete(l.subs, sub)
			close(sub)
		}
	}()
	return sub
}
