package rest

import (
	"bytes"
	"encoding/json"
	"testing"

	gojson "github.com/goccy/go-json"
)

// Bodies that write themselves write what encoding/json writes of them (with <, > and & as they
// are): pages with and without a total, of blocks and of other bodies, empty and null.
func TestSelfWritingBodiesWriteWhatEncodingJSONWrites(t *testing.T) {
	total := 3001
	block := newBlockBody(BlockFields{
		Canonical: true, Height: 7, Hash: "0x01", IndexBlockHash: "0x02", ParentBlockHash: "0x03",
		BurnBlockTimeIso: "2023-12-03T14:13:20.000Z", MinerTxid: "0x<&>", TxIds: answerJSON(`["0x0a","0x0b"]`),
		ParentMicroblockHash: "0x04", ParentMicroblockSequence: 2,
	}, []string{"0x05"}, []string{}, txCountsByHash{{Hash: "0x05", TxCount: 4}})
	noTxs := block
	noTxs.Txs = nil
	for name, v := range map[string]any{
		"block":                block,
		"block without txs":    noTxs,
		"page of blocks":       page[blockBody]{Limit: 20, Offset: 40, Total: &total, Results: []blockBody{block, noTxs}},
		"empty page":           page[blockBody]{Limit: 20, Results: []blockBody{}},
		"null page":            page[blockBody]{Limit: 1, Offset: 2},
		"page of other bodies": page[map[string]string]{Limit: 2, Total: &total, Results: []map[string]string{{"a": "<b>&"}, {}}},
	} {
		got, err := marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, w)
		}
	}
}

// A part of the answer kept as it is stays whole when the answer's buffer is written over, as
// the lent answer buffers are by the next operation.
func TestAnswerJSONOutlivesTheAnswerBuffer(t *testing.T) {
	answer := []byte(`{"txIds":["0x0a","0x0b"],"height":7}`)
	var b BlockFields
	if err := gojson.Unmarshal(answer, &b); err != nil {
		t.Fatal(err)
	}
	for i := range answer {
		answer[i] = ' '
	}
	if got := string(b.TxIds); got != `["0x0a","0x0b"]` {
		t.Errorf("txIds after the buffer was reused = %q", got)
	}
}
