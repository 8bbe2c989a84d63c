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
	// NoticeBrc20 is a BRC-20 block applied or rolled back, heard on Brc20Channel.
	NoticeBrc20 = "brc20"
)

// Notice is one announcement of committed chain data, as ingestion sends it on EventsChannel.
type Notice struct {
	Kind             string
	IndexBlockHash   []byte      // block
	BlockHeight      int32       // block, microblock
	Canonical        bool        // block
	MicroblockHashes [][]byte    // microblock
	TxIDs            [][]byte    // mempool
	Brc20            Brc20Notice // brc20
}

// noticeJSON is a notice's payload on EventsChannel, as ingestion writes it (Writer.notify)
// and ParseNotice reads it. Fields a kind does not use are left out of the payload.
type noticeJSON struct {
	Kind             string       `json:"kind"`
	IndexBlockHash   noticeHash   `json:"index_block_hash,omitempty"`
	BlockHeight      int32        `json:"block_height,omitempty"`
	Canonical        bool         `json:"canonical,omitempty"`
	MicroblockHashes []noticeHash `json:"microblock_hashes,omitempty"`
	TxIDs            []noticeHash `json:"tx_ids,omitempty"`
}

// noticeHash is a hash in a notice, written by Hex ("0x" and hex); "" reads as nil.
type noticeHash []byte

func (h noticeHash) MarshalText() ([]byte, error) { return []byte(Hex(h)), nil }

func (h *noticeHash) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*h = nil
		return nil
	}
	b, err := hex.DecodeString(strings.TrimPrefix(string(text), "0x"))
	if err != nil {
		return fmt.Errorf("notice hash %q: %w", text, err)
	}
	*h = b
	return nil
}

// ParseNotice decodes a notification payload.
func ParseNotice(payload string) (Notice, error) {
	var j noticeJSON
	if err := json.Unmarshal([]byte(payload), &j); err != nil {
		return Notice{}, fmt.Errorf("notice %q: %w", payload, err)
	}
	return Notice{Kind: j.Kind, IndexBlockHash: j.IndexBlockHash, BlockHeight: j.BlockHeight, Canonical: j.Canonical,
		MicroblockHashes: hashBytes(j.MicroblockHashes), TxIDs: hashBytes(j.TxIDs)}, nil
}

// hashBytes converts a notice's hashes (never nil, as a statement may take them as an array).
func hashBytes(hs []noticeHash) [][]byte {
	out := make([][]byte, len(hs))
	for i, h := range hs {
		out[i] = h
	}
	return out
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

// Listen starts listening on EventsChannel and Brc20Channel until ctx ends. pgdriver reconnects
// (and re-LISTENs) by itself when the connection drops; notices sent meanwhile are lost, as
// NOTIFY does not queue.
func (s *Store) Listen(ctx context.Context) (*Listener, error) {
	ln := pgdriver.NewListener(s.DB)
	if err := ln.Listen(ctx, EventsChannel, Brc20Channel); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on %s and %s: %w", EventsChannel, Brc20Channel, err)
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
		if msg.Channel == Brc20Channel {
			b, err := ParseBrc20Notice(msg.Payload)
			if err != nil {
				slog.Warn("ignoring malformed BRC-20 notice", "err", err)
				continue
			}
			l.publish(Notice{Kind: NoticeBrc20, BlockHeight: b.Height, Brc20: b})
			continue
		}
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

// Subscribe returns the notices the listener hears from now on. NOTIFY reaches the listener
// asynchronously, so they may begin with some committed shortly before the call. The channel
// closes when ctx ends or the listener stops.
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
