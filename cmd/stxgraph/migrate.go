package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/stxgraph/stxgraph/db"
)

func migrateCommand(args []string, stdout, stderr io.Writer) int {
	var cfg config
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: stxgraph migrate up|down|status [flags]\n\n"+
			"  up      create the database if missing and apply every pending migration\n"+
			"  down    revert the last group of migrations\n"+
			"  status  list migrations and whether each is applied\n\nFlags:")
		fs.PrintDefaults()
	}
	cfg.databaseFlags(fs)
	if len(args) == 0 {
		fs.Usage()
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" {
		fs.Usage()
		return 0
	}
	action := args[0]
	if err := parseFlags(fs, args[1:]); err != nil {
		return exitCode(err)
	}
	if action != "up" && action != "down" && action != "status" {
		fs.Usage()
		return 2
	}
	ctx := context.Background()
	if action == "up" {
		if err := db.EnsureDatabase(ctx, cfg.databaseURL); err != nil {
			fmt.Fprintln(stderr, "stxgraph migrate:", err)
			return 1
		}
	}
	store := db.Open(cfg.databaseURL, db.PoolOptions{MaxOpen: 2})
	defer store.Close()
	var err error
	switch action {
	case "up":
		var names []string
		if names, err = store.Migrate(ctx); err == nil {
			fmt.Fprintf(stdout, "applied %d migration(s) %v\n", len(names), names)
		}
	case "down":
		var names []string
		if names, err = store.Rollback(ctx); err == nil {
			fmt.Fprintf(stdout, "reverted %d migration(s) %v\n", len(names), names)
		}
	case "status":
		var ms []db.MigrationStatus
		if ms, err = store.Status(ctx); err == nil {
			for _, m := range ms {
				state := "pending"
				if m.Applied {
					state = "applied"
				}
				fmt.Fprintf(stdout, "%-40s %s\n", m.Name, state)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "stxgraph migrate:", err)
		return 1
	}
	return 0
}

// exitCode is 0 for --help and 2 for other flag errors.
func exitCode(err error) int {
	if err == flag.ErrHelp {
		return 0
	}
	return 2
}
