package clarity

import "strings"

const replacementChar = "\uFFFD"

// forEachLossy walks s the way Rust's String::from_utf8_lossy decodes it: every well-formed
// character is passed as is, and every maximal subpart of an ill-formed sequence (Unicode 3-7)
// is passed as one U+FFFD. Go's utf8.DecodeRune would instead replace each byte separately.
func forEachLossy(s string, fn func(char string)) {
	for i := 0; i < len(s); {
		n, ok := wellFormedPrefix(s[i:])
		if ok {
			fn(s[i : i+n])
		} else {
			fn(replacementChar)
		}
		i += n
	}
}

// LossyString converts b to valid UTF-8 with from_utf8_lossy's replacement rule, as the API does
// for contract source code.
func LossyString(b []byte) string {
	var w strings.Builder
	w.Grow(len(b))
	forEachLossy(string(b), func(char string) { w.WriteString(char) })
	return w.String()
}

// wellFormedPrefix reports the length of the character or ill-formed subpart at the start of s
// (at least 1) and whether it is a well-formed character.
func wellFormedPrefix(s string) (int, bool) {
	lead := s[0]
	var need int
	lo, hi := byte(0x80), byte(0xbf) // allowed range of the second byte
	switch {
	case lead < 0x80:
		return 1, true
	case lead >= 0xc2 && lead <= 0xdf:
		need = 1
	case lead == 0xe0:
		need, lo = 2, 0xa0
	case lead == 0xed:
		need, hi = 2, 0x9f // excludes surrogates
	case lead >= 0xe1 && lead <= 0xef:
		need = 2
	case lead == 0xf0:
		need, lo = 3, 0x90
	case lead == 0xf4:
		need, hi = 3, 0x8f
	case lead >= 0xf1 && lead <= 0xf3:
		need = 3
	default:
		return 1, false // continuation byte, overlong lead C0/C1, or F5..FF
	}
	for i := 1; i <= need; i++ {
		if i >= len(s) || s[i] < lo || s[i] > hi {
			return i, false
		}
		lo, hi = 0x80, 0xbf
	}
	return need + 1, true
}
