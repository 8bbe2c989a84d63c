package address

import "testing"

// The reward addresses of the reference's PoX tests round-trip through Decode and FromPox.
func TestFromPox(t *testing.T) {
	for _, s := range []string{"mk4zAE1iVWf5PJAgeX83rSXnzF5zQBiqf1", "n2v875jbJ4RjBnTjgbfikDfnwsDV5iUByw", "2N4M94S1ZPt8HfxydXzL2P7qyzgVq7MHWts",
		"1BoatSLRHtKNngkdXEeobR76b53LETtpyT", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
		"tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c"} {
		a, err := Decode(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got, ok := FromPox(a.Version, a.Hash, a.Network); !ok || got != s {
			t.Errorf("FromPox(%d, %x, %s) = %q, %v; want %q", a.Version, a.Hash, a.Network, got, ok, s)
		}
	}
	if _, ok := FromPox(7, make([]byte, 20), Mainnet); ok {
		t.Error("version 7 encoded")
	}
}
