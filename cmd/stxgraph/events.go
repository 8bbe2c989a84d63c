package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
)

func importEventsCommand(args []string, stdout, stderr io.Writer) int {
	var wipe bool
	return fileCommand("import-events", "Usage: stxgraph import-events --file F [--wipe] [flags]\n\n"+
		"Replays a TSV event log (the reference API's export-events format, plain or .gz) through\n"+
		"the event observer's code path, many messages per transaction. Records already applied\n"+
		"(by id) are skipped, so an interrupted import can simply be run again. Into an empty\n"+
		"database, the indexes only the API reads are built, and the per-principal totals and\n"+
		"positions computed, once at the end.",
		"TSV file to replay (required)", args, stderr,
		func(fs *flag.FlagSet) { fs.BoolVar(&wipe, "wipe", false, "empty every chain table first") },
		func(ctx context.Context, cfg *config, file string) error {
			return importEvents(ctx, cfg, file, wipe, stdout, stderr)
		})
}

func importEvents(ctx context.Context, cfg *config, file string, wipe bool, stdout, stderr io.Writer) error {
	store, err := openStore(ctx, cfg.databaseURL, cfg.pool())
	if err != nil {
		return err
	}
	defer store.Close()
	if wipe {
		if err := store.WipeChainData(ctx); err != nil {
			return fmt.Errorf("wipe: %w", err)
		}
	}
	r, closer, err := tsv.Open(file)
	if err != nil {
		return err
	}
	defer closer.Close()
	// Into an empty chain, the indexes only the API reads are built, and the per-principal
	// totals computed, once at the end.
	deferred, err := store.DeferUpkeep(ctx)
	if err != nil {
		return fmt.Errorf("defer upkeep: %w", err)
	}
	var opts ingest.ReplayOptions
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		total, err := countLines(file)
		if err != nil {
			return err
		}
		bar := &progressBar{w: stderr, total: total, unit: "events"}
		opts.OnProgress = func(p ingest.Progress) {
			if bar.due(p.Done) {
				bar.draw(p.Done, p.Elapsed, fmt.Sprintf("%d blocks", p.Blocks))
			}
		}
	}
	p, err := ingest.NewIngester(store).Replay(ctx, r, opts)
	if opts.OnProgress != nil {
		fmt.Fprintln(stderr)
	}
	fmt.Fprintf(stdout, "read %d records: applied %d (%d blocks), skipped %d already applied, in %s (%.0f records/s)\n",
		p.Done, p.Applied, p.Blocks, p.Skipped, p.Elapsed.Round(time.Millisecond), rate(p.Applied, p.Elapsed))
	if deferred {
		if rerr := store.CompleteUpkeep(ctx); rerr != nil {
			return errors.Join(err, fmt.Errorf("complete deferred upkeep: %w", rerr))
		}
	}
	if err != nil || p.Applied == 0 {
		return err
	}
	return store.VacuumChainData(ctx)
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// countLines counts the records of a (possibly gzipped) TSV file for the progress bar's ETA.
func countLines(file string) (int64, error) {
	r, closer, err := tsv.Open(file)
	if err != nil {
		return 0, err
	}
	defer closer.Close()
	return r.CountLines()
}

func exportEventsCommand(args []string, stdout, stderr io.Writer) int {
	var cfg config
	var file string
	var overwrite bool
	fs := flag.NewFlagSet("export-events", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: stxgraph export-events --file F [--overwrite-file] [flags]\n\n"+
			"Writes the raw event-observer request log in the reference API's TSV format\n"+
			"(gzip-compressed when F ends in .gz), ready for import-events.\n\nFlags:")
		fs.PrintDefaults()
	}
	cfg.databaseFlags(fs)
	fs.StringVar(&file, "file", "", "TSV file to write (required)")
	fs.BoolVar(&overwrite, "overwrite-file", false, "replace the file when it exists")
	if err := parseFlags(fs, args); err != nil {
		return exitCode(err)
	}
	if file == "" {
		fmt.Fprintln(stderr, "export-events: --file is required")
		return 2
	}
	if err := exportEvents(context.Background(), &cfg, file, overwrite, stdout); err != nil {
		slog.Error("export-events failed", "err", err)
		return 1
	}
	return 0
}

func exportEvents(ctx context.Context, cfg *config, file string, overwrite bool, stdout io.Writer) (err error) {
	store, err := openStore(ctx, cfg.databaseURL, cfg.pool())
	if err != nil {
		return err
	}
	defer store.Close()
	create := tsv.CreateNew
	if overwrite {
		create = tsv.Create
	}
	w, err := create(file)
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := ingest.Export(ctx, store, w.Text())
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %d events to %s in %s\n", n, file, time.Since(start).Round(time.Millisecond))
	return nil
}
