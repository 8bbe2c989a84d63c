package main

import (
	"bufio"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// logFlushEvery bounds how long a log record waits in the buffer before it is written.
const logFlushEvery = 100 * time.Millisecond

// setupLogging logs text to a terminal, as it happens, and JSON otherwise, in batches (see
// batchedLog). It returns the function that writes what is still buffered, for exit.
func setupLogging() (flush func()) {
	if term.IsTerminal(int(os.Stderr.Fd())) {
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
		return func() {}
	}
	b := newBatchedLog(os.Stderr)
	go b.flushEvery(logFlushEvery)
	slog.SetDefault(slog.New(slog.NewJSONHandler(b, nil)))
	return b.flush
}

// batchedLog collects log records and writes them to out in batches: the API logs every
// request, and at tens of thousands of requests a second one write(2) per record costs more
// than answering a read from memory.
type batchedLog struct {
	mu  sync.Mutex
	buf *bufio.Writer
}

func newBatchedLog(out io.Writer) *batchedLog {
	return &batchedLog{buf: bufio.NewWriterSize(out, 64<<10)}
}

func (b *batchedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *batchedLog) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Flush() //nolint:errcheck // stderr gone: nowhere left to report it
}

func (b *batchedLog) flushEvery(d time.Duration) {
	for range time.Tick(d) {
		b.flush()
	}
}
