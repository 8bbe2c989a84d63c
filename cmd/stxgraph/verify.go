package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/stxgraph/stxgraph/db"
)

func verifyCommand(args []string, stdout, stderr io.Writer) int {
	var cfg config
	var digest bool
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: stxgraph verify --digest [flags]\n\n"+
			"Prints a hash over the canonical chain state (tip, blocks, microblocks, transactions,\n"+
			"events, miner rewards, announced reward sets and STX balances), one line per section, then\n"+
			"the digest of all of "+
			"them. Two databases with the same canonical chain print the same digest, however they\n"+
			"were filled (event observer or import-events, with or without crashes and retries).\n\nFlags:")
		fs.PrintDefaults()
	}
	cfg.databaseFlags(fs)
	fs.BoolVar(&digest, "digest", false, "print the canonical-state digest")
	if err := parseFlags(fs, args); err != nil {
		return exitCode(err)
	}
	if !digest {
		fs.Usage()
		return 2
	}
	store := db.Open(cfg.databaseURL, db.PoolOptions{MaxOpen: 2})
	defer store.Close()
	parts, total, err := store.Digest(context.Background())
	if err != nil {
		fmt.Fprintln(stderr, "stxgraph verify:", err)
		return 1
	}
	for _, p := range parts {
		fmt.Fprintf(stdout, "%-16s %10d  %s\n", p.Name, p.Rows, p.Hash)
	}
	fmt.Fprintf(stdout, "digest %s\n", total)
	return 0
}
