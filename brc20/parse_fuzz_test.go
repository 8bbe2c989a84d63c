package brc20

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: any body parses without panicking, and what parses keeps the protocol's shape.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"p":"brc-20","op":"deploy","tick":"ordi","max":"21000000","lim":"1000"}`,
		`{"p":"brc-20","op":"deploy","tick":"$pepe","max":"0","lim":"1","dec":"0","self_mint":"true"}`,
		`{"p":"brc-20","op":"mint","tick":"ORDI","amt":"1000.5"}`,
		`{"p":"brc-20","op":"transfer","tick":"😉","amt":"1","x":[1,{"a":null}]}`,
		`{"\u0070":"brc-20","op":"mint","tick":"a\ud83d\ude09","amt":"1"}`,
	} {
		f.Add("text/plain", []byte(s))
	}
	f.Fuzz(func(t *testing.T, ctype string, body []byte) {
		op, ok := Parse(ctype, body)
		if !ok {
			return
		}
		if n := len(op.DisplayTick); n < 4 || n > 5 || !utf8.ValidString(op.DisplayTick) || op.Ticker != Lower(op.DisplayTick) {
			t.Fatalf("ticker %q / %q", op.DisplayTick, op.Ticker)
		}
		switch op.Kind {
		case Deploy:
			if op.Max.Sign() <= 0 || op.Limit.Sign() <= 0 || op.Decimals < 0 || op.Decimals > 18 || op.SelfMint != (len(op.DisplayTick) == 5) {
				t.Fatalf("deploy %+v", op)
			}
		case Mint, Transfer:
			if op.Amount == "" || strings.Trim(op.Amount, "0123456789.") != "" {
				t.Fatalf("amount %q", op.Amount)
			}
		default:
			t.Fatalf("kind %d", op.Kind)
		}
	})
}
