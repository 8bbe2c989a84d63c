package graph

import (
	"bytes"
	"context"
	"sync/atomic"
)

// The REST adapter runs its fixed operations in-process and decodes their data at once, so it
// can lend the executor the buffer the data is written into (WithResponseBuffer) and use it
// again after decoding, instead of a new buffer grown by doubling for every answer: a list of
// blocks with their transaction ids is hundreds of kilobytes. cmd/leafpath routes the query and
// mutation answers of the generated Exec through responseBuffer.

type responseBufferKey struct{}

// WithResponseBuffer lends b to the operation run with ctx, for its first answer alone (an
// operation with deferred fragments writes its later answers into buffers of their own).
func WithResponseBuffer(ctx context.Context, b *bytes.Buffer) context.Context {
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
