package chainwrite

import "testing"

// SetCopyMinRows sets the number of rows of one table from which they are copied, until the test
// ends. Only for tests that do not run in parallel.
func SetCopyMinRows(t testing.TB, n int) {
	old := copyMinRows
	copyMinRows = n
	t.Cleanup(func() { copyMinRows = old })
}
