package tx

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/internal/fixtures"
)

// fixtureTx is one raw transaction found in an event-observer dump; TxID is empty for mempool
// transactions, whose id the node does not send.
type fixtureTx struct {
	Where string
	Raw   string
	TxID  string
}

var fixtureFiles = []string{
	"epoch-3-transition.tsv.gz",
	"fuzzed-transactions-1.tsv.gz",
	"mainnet-block0.tsv.gz",
	"mainnet-out-of-order-microblock.tsv.gz",
	"mainnet-reorg-scenario1.tsv.gz",
	"mainnet-reorg-scenario2.tsv.gz",
	"mocknet.tsv.gz",
	"poisonmicroblock.tsv.gz",
	"regtest-env-pox-4-out-of-order-multisig-tx.tsv.gz",
	"regtest-env-pox-4-stack-stx-in-reward-phase-S1.tsv.gz",
	"regtest-env-pox-4-stack-stx-in-reward-phase-S2.tsv.gz",
	"regtest-env-pox-4-stack-stx-in-reward-phase-S3.tsv.gz",
}

// readFixtureTxs reads the transactions of one TSV dump (id, receive time, event path, payload).
// The payload column is PostgreSQL COPY-text escaped, except in fuzzed-transactions-1, which
// holds raw JSON.
func readFixtureTxs(tb testing.TB, name string) []fixtureTx {
	tb.Helper()
	f, err := os.Open(fixtures.Path(tb, filepath.Join("stacks", name)))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	escaped := name != "fuzzed-transactions-1.tsv.gz"
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []fixtureTx
	for line := 1; sc.Scan(); line++ {
		cols := strings.SplitN(sc.Text(), "\t", 4)
		if len(cols) != 4 {
			tb.Fatalf("%s:%d: %d columns, want 4", name, line, len(cols))
		}
		payload := cols[3]
		if escaped {
			payload = unescapeCopyText(payload)
		}
		out = append(out, payloadTxs(tb, name+":"+cols[0]+cols[2], cols[2], []byte(payload))...)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func payloadTxs(tb testing.TB, where, path string, payload []byte) []fixtureTx {
	tb.Helper()
	var out []fixtureTx
	switch path {
	case "/new_block", "/new_microblocks":
		var body struct {
			Transactions []struct {
				TxID  string `json:"txid"`
				RawTx string `json:"raw_tx"`
			} `json:"transactions"`
		}
		if err := json.Unmarshal(payload, &body); err != nil {
			tb.Fatalf("%s: %v", where, err)
		}
		for _, t := range body.Transactions {
			if t.RawTx != "0x00" { // "0x00" marks a Bitcoin-originated operation
				out = append(out, fixtureTx{Where: where, Raw: t.RawTx, TxID: t.TxID})
			}
		}
	case "/new_mempool_tx":
		var raws []string
		if err := json.Unmarshal(payload, &raws); err != nil {
			tb.Fatalf("%s: %v", where, err)
		}
		for _, r := range raws {
			out = append(out, fixtureTx{Where: where, Raw: r})
		}
	}
	return out
}

// unescapeCopyText undoes PostgreSQL COPY text-format escaping.
func unescapeCopyText(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			v, n := 0, 0
			for ; n < 2 && i+1 < len(s) && isHex(s[i+1]); n++ {
				i++
				v = v*16 + hexVal(s[i])
			}
			b.WriteByte(byte(v))
		default:
			if c >= '0' && c <= '7' {
				v := int(c - '0')
				for n := 1; n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; n++ {
					i++
					v = v*8 + int(s[i]-'0')
				}
				b.WriteByte(byte(v))
			} else {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

func isHex(c byte) bool { return hexVal(c) >= 0 }

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func TestUnescapeCopyText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, "plain"},
		{`a\\b`, `a\b`},
		{`{"s": "x\\"y"}`, `{"s": "x\"y"}`},
		{`\n\t\r`, "\n\t\r"},
		{`\101\x41`, "AA"},
	}
	for _, tt := range tests {
		if got := unescapeCopyText(tt.in); got != tt.want {
			t.Errorf("unescapeCopyText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFixtureTransactions decodes every transaction the nodes sent in the replay fixtures: each
// must decode, hash to the txid the node reported, re-encode to the same bytes, render its API
// fields, and carry valid signatures.
func TestFixtureTransactions(t *testing.T) {
	total := 0
	for _, name := range fixtureFiles {
		t.Run(name, func(t *testing.T) {
			txs := readFixtureTxs(t, name)
			if len(txs) == 0 {
				t.Fatal("no transactions found")
			}
			for _, ft := range txs {
				checkFixtureTx(t, ft)
			}
			total += len(txs)
		})
	}
	t.Logf("%d fixture transactions checked", total)
}

func checkFixtureTx(t *testing.T, ft fixtureTx) {
	t.Helper()
	raw := unhex(t, ft.Raw)
	tx, err := Decode(raw)
	if err != nil {
		t.Errorf("%s: %v", ft.Where, err)
		return
	}
	if ft.TxID != "" && tx.TxIDHex() != ft.TxID {
		t.Errorf("%s: tx id %s, node says %s", ft.Where, tx.TxIDHex(), ft.TxID)
	}
	if !bytes.Equal(tx.Encode(), raw) {
		t.Errorf("%s %s: re-encoding differs", ft.Where, ft.TxID)
	}
	if _, err := json.Marshal(tx.APIFields()); err != nil {
		t.Errorf("%s: %v", ft.Where, err)
	}
	// Boot-contract transactions in genesis blocks carry an all-zero signature and cannot verify.
	err = tx.Verify()
	switch {
	case tx.Origin.HashMode.IsSingleSig() && tx.Origin.Signature == [65]byte{}:
		if err == nil {
			t.Errorf("%s %s: unsigned transaction verified", ft.Where, ft.TxID)
		}
	case err != nil:
		t.Errorf("%s %s: Verify: %v", ft.Where, ft.TxID, err)
	case !tx.HasLowS():
		t.Errorf("%s %s: high-S signature from a node", ft.Where, ft.TxID)
	}
}
