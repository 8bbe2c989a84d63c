package server

import (
	"context"
	"testing"
)

// The operation run for a /graphql request takes the scan the answer cache made of its text, and
// scans a text of its own (a persisted query's, restored from its hash) itself.
func TestAnOperationTakesItsRequestsScan(t *testing.T) {
	text := `{ block(height: 1) { height } }`
	kept, ok := scanLiterals(text)
	if !ok || len(kept.lits) != 1 {
		t.Fatalf("scan of %q: %+v, %v", text, kept, ok)
	}
	kept.shape = "the request's"
	ctx := withScan(context.Background(), text, &kept)
	if s, ok := scanOf(ctx, text); !ok || s.shape != "the request's" {
		t.Errorf("the request's text was scanned again: shape %q", s.shape)
	}
	other := `{ block(height: 1) { hash } }`
	if s, ok := scanOf(ctx, other); !ok || s.shape == "the request's" || len(s.lits) != 1 {
		t.Errorf("another text took the request's scan: %+v", s)
	}
}
