package graph

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
)

// The REST adapter decodes the data of its fixed operations at once, and /graphql copies it into
// the response it writes, so both can lend the executor the buffer the data is written into
// (LendResponseBuffer) and use it again afterwards, instead of a new buffer grown by doubling for
// every answer: a list of blocks with their transaction ids, or a front page of blocks with their
// transactions, is hundreds of kilobytes. cmd/leafpath routes the query and mutation answers of
// the generated Exec through responseBuffer.

type responseBufferKey struct{}

// withResponseBuffer lends b to the operation run with ctx, for its first answer alone (an
// operation with deferred fragments writes its later answers into buffers of their own).
func withResponseBuffer(ctx context.Context, b *bytes.Buffer) context.Context {
	var lent atomic.Pointer[bytes.Buffer]
	lent.Store(b)
	return context.WithValue(ctx, responseBufferKey{}, &lent)
}

// responseBuffer is the empty buffer an answer is written into: the one lent, else a new one.
func responseBuffer(ctx context.Context) *bytes.Buffer {
	if lent, ok := ctx.Value(responseBufferKey{}).(*atomic.Pointer[bytes.Buffer]); ok {
		if b := lent.Swap(nil); b != nil {
			b.Reset()
			return b
		}
	}
	return new(bytes.Buffer)
}

// responseBuffers are the buffers LendResponseBuffer lends.
var responseBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxKeptResponseBuffer bounds the buffers kept for reuse, so that one outsized answer does not
// stay in memory.
const maxKeptResponseBuffer = 4 << 20

// LendResponseBuffer lends the operation run with the returned context a buffer of the pool for
// its first answer. release takes it back: the caller calls it once nothing refers to the
// answer's data any more (decoded, or copied into the response).
func LendResponseBuffer(ctx context.Context) (_ context.Context, release func()) {
	b := responseBuffers.Get().(*bytes.Buffer)
	return withResponseBuffer(ctx, b), func() {
		if b.Cap() <= maxKeptResponseBuffer {
			responseBuffers.Put(b)
		}
	}
}
