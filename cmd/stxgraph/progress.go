package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressBar is the status line the import commands redraw on a terminal: a bar, the count
// done, the rate, the command's own figures and the time left.
type progressBar struct {
	w     io.Writer
	total int64
	unit  string // what is counted, plural: "events"
	last  time.Time
}

// due reports whether to redraw for done items: at most every 200 ms, so that drawing never
// slows the import, and always at the end.
func (b *progressBar) due(done int64) bool {
	if time.Since(b.last) < 200*time.Millisecond && done < b.total {
		return false
	}
	b.last = time.Now()
	return true
}

// draw redraws the line; figures is shown after the rate, e.g. "12 blocks".
func (b *progressBar) draw(done int64, elapsed time.Duration, figures string) {
	r := rate(done, elapsed)
	eta := "?"
	if r > 0 {
		eta = (time.Duration(float64(b.total-done)/r) * time.Second).Round(time.Second).String()
	}
	const width = 30
	filled := int(float64(width) * float64(done) / float64(max(b.total, 1)))
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d %s  %.0f %s/s  %s  ETA %s   ",
		strings.Repeat("=", min(filled, width)), strings.Repeat(" ", max(width-filled, 0)), done, b.total, b.unit, r, b.unit, figures, eta)
}
