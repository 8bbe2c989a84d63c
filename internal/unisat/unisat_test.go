package unisat

import (
	"encoding/json"
	"strings"
	"testing"
)

// The ordi deploy (the file's first line) and a move of it become chainhook operations with the
// display-order txid, the owner's address and one sat per inscription.
func TestBlocks(t *testing.T) {
	deploy := "false 3557632d64a45dd8ae2abc4e6d5d1a977e98db24c6a0ae186c265ed972011bb6 0 0 10000 512037679ea62eab55ebfd442c53c4ad46b6b75e45d8a8fa9cb31a87d0df268b029a 348020 7b7d 38e60b000000000000000000 779832 407 1678248991"
	move := "true fe6294e3be8fc361bf92721255a2940272b32c87ae9afdc0cc303c4e9c018f62 0 0 0 76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac 0  38e60b000000000000000000 779833 12 1678249496"
	blocks, err := Blocks(strings.NewReader(deploy + "\n" + move + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].Height != 779832 || blocks[1].Height != 779833 || blocks[0].Hash != Hash(779832) {
		t.Fatalf("blocks %+v", blocks)
	}
	var p struct {
		Apply []struct {
			Timestamp    int64 `json:"timestamp"`
			Transactions []struct {
				Metadata struct {
					Index int `json:"index"`
					Ops   []struct {
						Revealed *struct {
							ID        string  `json:"inscription_id"`
							Inscriber *string `json:"inscriber_address"`
							Sat       int64   `json:"ordinal_number"`
							Content   string  `json:"content_bytes"`
						} `json:"inscription_revealed"`
						Transferred *struct {
							Destination struct{ Type, Value string } `json:"destination"`
							Sat         int64                        `json:"ordinal_number"`
						} `json:"inscription_transferred"`
					} `json:"ordinal_operations"`
				} `json:"metadata"`
			} `json:"transactions"`
		} `json:"apply"`
	}
	if err := json.Unmarshal(blocks[0].Payload, &p); err != nil {
		t.Fatal(err)
	}
	rv := p.Apply[0].Transactions[0].Metadata.Ops[0].Revealed
	if rv == nil || rv.ID != "b61b0172d95e266c18aea0c624db987e971a5d6d4ebc2aaed85da4642d635735i0" || rv.Inscriber == nil ||
		*rv.Inscriber != "bc1pxaneaf3w4d27hl2y93fuft2xk6m4u3wc4rafevc6slgd7f5tq2dqyfgy06" || rv.Content != "0x7b7d" ||
		p.Apply[0].Transactions[0].Metadata.Index != 407 || p.Apply[0].Timestamp != 1678248991 {
		t.Fatalf("reveal %+v in %+v", rv, p)
	}
	sat := rv.Sat
	if err := json.Unmarshal(blocks[1].Payload, &p); err != nil {
		t.Fatal(err)
	}
	mv := p.Apply[0].Transactions[0].Metadata.Ops[0].Transferred
	if mv == nil || mv.Sat != sat || mv.Destination.Type != "spent_in_fees" {
		t.Fatalf("move %+v, want the deploy's sat %d spent in fees", mv, sat)
	}
	if _, err := Blocks(strings.NewReader("false 00 0\n")); err == nil {
		t.Fatal("a short line was accepted")
	}
}
