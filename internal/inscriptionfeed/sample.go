package inscriptionfeed

import "fmt"

// Addresses of the sample's holders.
const (
	Alice = "bc1qalice7q2uf9wz5tkz8q8ulxsmfmpk0c6wk3vzs"
	Bob   = "bc1pbob5n8cx2xqhh3rz8nmz3g2e9wt4vx3jqk7ydh"
	Carol = "1CaroLxUvxbVDc1kUTqnoEk5A1fDnwpL8y"
)

// Sample is a small history over four blocks from the activation height: three deploys (ordi at
// 18 decimals, Dec2 at 2, Äbc at 0 with nothing minted) and a repeated one, mints (one over the limit), two transfer
// inscriptions of which one is sent, and a transfer beyond the balance. It ends with ordi
// minted 1800 (Alice 700, Bob 400 + 100 transferable, Carol 600) and dec2 minted 15.50 (Carol
// 10, Alice 5.50).
func Sample() []*Block {
	c := new(Chain)
	const t0 = 1678248991
	b0 := c.Block(779832, t0)
	b0.Reveal(Alice, `{ "p": "brc-20", "op": "deploy", "tick": "ordi", "max": "21000000", "lim": "1000" }`)
	b0.Reveal(Bob, `{"p":"brc-20","op":"deploy","tick":"Dec2","max":"1000","lim":"10","dec":"2"}`)
	b0.Reveal(Carol, `{"p":"brc-20","op":"deploy","tick":"ORDI","max":"5","lim":"1"}`)
	b0.Reveal(Carol, `{"p":"brc-20","op":"deploy","tick":"Äbc","max":"21","dec":"0"}`)

	b1 := c.Block(779833, t0+600)
	b1.Reveal(Alice, mint("ordi", "1000"))
	b1.Reveal(Bob, mint("ordi", "500"))
	b1.Reveal(Carol, mint("DEC2", "10"))
	b1.Reveal(Alice, mint("dec2", "5.5"))
	b1.Reveal(Carol, mint("ordi", "1001"))

	b2 := c.Block(779834, t0+1200)
	_, sent := b2.Reveal(Alice, transfer("ordi", "300"))
	b2.Reveal(Bob, transfer("ordi", "100"))

	b3 := c.Block(779835, t0+1800)
	b3.Move(sent, Carol)
	b3.Reveal(Bob, transfer("dec2", "1"))
	b3.Reveal(Carol, mint("ordi", "300"))
	return []*Block{b0, b1, b2, b3}
}

func mint(tick, amt string) string {
	return fmt.Sprintf(`{"p":"brc-20","op":"mint","tick":%q,"amt":%q}`, tick, amt)
}

func transfer(tick, amt string) string {
	return fmt.Sprintf(`{"p":"brc-20","op":"transfer","tick":%q,"amt":%q}`, tick, amt)
}
