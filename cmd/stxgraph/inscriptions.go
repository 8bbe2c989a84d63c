package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/stxgraph/stxgraph/ingest"
)

func importInscriptionsCommand(args []string, stdout, stderr io.Writer) int {
	return fileCommand("import-inscriptions", "Usage: stxgraph import-inscriptions --file F [flags]\n\n"+
		"Applies chainhook inscription_feed payloads, one JSON object per line (plain or gzip),\n"+
		"as the /chainhook/ordinals path of the event observer does, one transaction per payload.\n"+
		"Blocks already applied are skipped, so an interrupted import can simply be run again.",
		"JSON-lines file of payloads (required)", args, stderr, nil,
		func(ctx context.Context, cfg *config, file string) error {
			return importInscriptions(ctx, cfg, file, stdout, stderr)
		})
}

// inscriptionImport sums up an import.
type inscriptionImport struct {
	Payloads int64
	ingest.OrdinalsResult
	Elapsed time.Duration
}

func importInscriptions(ctx context.Context, cfg *config, file string, stdout, stderr io.Writer) error {
	store, err := openStore(ctx, cfg.databaseURL, cfg.pool())
	if err != nil {
		return err
	}
	defer store.Close()
	var bar *progressBar
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		total, err := countPayloads(file)
		if err != nil {
			return err
		}
		bar = &progressBar{w: stderr, total: total, unit: "payloads"}
	}
	r, closer, err := openLines(file)
	if err != nil {
		return err
	}
	defer closer.Close()
	var sum inscriptionImport
	start := time.Now()
	for line := 1; ; line++ {
		b, rerr := r.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			p, err := ingest.DecodeOrdinals(b)
			if err != nil {
				return fmt.Errorf("%s line %d: %w", file, line, err)
			}
			res, err := ingest.ApplyOrdinals(ctx, store, p)
			if err != nil {
				return fmt.Errorf("%s line %d: %w", file, line, err)
			}
			sum.Payloads++
			sum.Applied += res.Applied
			sum.RolledBack += res.RolledBack
			sum.Skipped += res.Skipped
			sum.Operations += res.Operations
			sum.Elapsed = time.Since(start)
			if bar != nil && bar.due(sum.Payloads) {
				bar.draw(sum.Payloads, sum.Elapsed, fmt.Sprintf("%d blocks  %d operations", sum.Applied, sum.Operations))
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	if bar != nil {
		fmt.Fprintln(stderr)
	}
	sum.Elapsed = time.Since(start)
	fmt.Fprintf(stdout, "read %d payloads: applied %d blocks (%d BRC-20 operations), rolled back %d, skipped %d already applied, in %s (%.0f operations/s)\n",
		sum.Payloads, sum.Applied, sum.Operations, sum.RolledBack, sum.Skipped, sum.Elapsed.Round(time.Millisecond), rate(int64(sum.Operations), sum.Elapsed))
	return nil
}

// openLines opens a file of lines, decompressing it when it starts with the gzip magic bytes.
func openLines(file string) (*bufio.Reader, io.Closer, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		return bufio.NewReaderSize(zr, 1<<20), f, nil
	}
	return br, f, nil
}

// countPayloads counts the non-empty lines for the progress bar's ETA.
func countPayloads(file string) (int64, error) {
	r, closer, err := openLines(file)
	if err != nil {
		return 0, err
	}
	defer closer.Close()
	var n int64
	for {
		b, err := r.ReadSlice('\n')
		if len(bytes.TrimSpace(b)) > 0 && !errors.Is(err, bufio.ErrBufferFull) {
			n++
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return 0, err
		}
	}
}
