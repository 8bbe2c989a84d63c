package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"syscall"
)

// fileCommand runs a command that works through one file (--file, required) against the
// database. flags registers the command's own flags; do runs with a context that SIGINT and
// SIGTERM cancel, so that an import stops between transactions. A failure is logged and exits 1.
func fileCommand(name, usage, fileUsage string, args []string, stderr io.Writer,
	flags func(*flag.FlagSet), do func(ctx context.Context, cfg *config, file string) error) int {
	var cfg config
	var file string
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage+"\n\nFlags:")
		fs.PrintDefaults()
	}
	cfg.databaseFlags(fs)
	cfg.profileFlags(fs)
	fs.StringVar(&file, "file", "", fileUsage)
	if flags != nil {
		flags(fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return exitCode(err)
	}
	if file == "" {
		fmt.Fprintf(stderr, "%s: --file is required\n", name)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if cfg.pprofAddr != "" {
		stopProfiles, err := serveProfiles(cfg.pprofAddr)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		defer stopProfiles()
	}
	if err := do(ctx, &cfg, file); err != nil {
		slog.Error(name+" failed", "err", err)
		return 1
	}
	return 0
}
