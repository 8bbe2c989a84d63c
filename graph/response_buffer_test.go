package graph

import (
	"bytes"
	"context"
	"testing"
)

// A lent buffer holds the operation's first answer alone, emptied first; later answers (deferred
// fragments) and operations lent nothing get buffers of their own.
func TestResponseBufferIsLentOnce(t *testing.T) {
	lent := bytes.NewBufferString("an earlier answer")
	ctx := withResponseBuffer(context.Background(), lent)
	first := responseBuffer(ctx)
	if first != lent || first.Len() != 0 {
		t.Fatalf("first answer's buffer: %p holding %q, want the lent %p emptied", first, first, lent)
	}
	if second := responseBuffer(ctx); second == lent {
		t.Error("a second answer was written into the lent buffer")
	}
	if b := responseBuffer(context.Background()); b == nil || b == lent {
		t.Errorf("an operation lent nothing got %p", b)
	}
}
