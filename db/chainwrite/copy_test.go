package chainwrite

import "testing"

// A SQL literal becomes the COPY text field that stores the same value.
func TestAppendCopyValue(t *testing.T) {
	for lit, want := range map[string]string{
		"NULL":              `\N`,
		"42":                "42",
		"-7":                "-7",
		"TRUE":              "TRUE",
		`'it''s'`:           "it's",
		`'\x0a0b'`:          `\\x0a0b`,
		"'tab\there\nline'": `tab\there\nline`,
		"''":                "",
	} {
		got, err := appendCopyValue(nil, []byte(lit))
		if err != nil || string(got) != want {
			t.Errorf("%s: got %q (%v), want %q", lit, got, err, want)
		}
	}
	for _, lit := range []string{"'{}'::jsonb", "now()"} {
		if got, err := appendCopyValue(nil, []byte(lit)); err == nil {
			t.Errorf("%s: got %q, want an error", lit, got)
		}
	}
}
