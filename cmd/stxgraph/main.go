// Command stxgraph indexes the Stacks blockchain into PostgreSQL and serves it over GraphQL and
// the legacy REST paths of the Stacks Blockchain API.
package main

import (
	"fmt"
	"io"
	"os"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"serve", "serve the HTTP API and the stacks-node event observer", serveCommand},
		{"migrate", "apply, revert or list database migrations (up|down|status)", migrateCommand},
		{"decode", "decode a transaction, Clarity value or address (tx|clarity|address)", decodeCommand},
		{"import-events", "replay a TSV event log (the reference's export format) into the database", importEventsCommand},
		{"verify", "print a digest of the canonical chain state (--digest)", verifyCommand},
		{"export-events", "write the raw event log as a TSV file for import-events", exportEventsCommand},
		{"import-inscriptions", "apply chainhook inscription payloads (JSON lines) to the BRC-20 tables", importInscriptionsCommand},
		{"version", "print the version", versionCommand},
	}
}

func main() {
	flush := setupLogging()
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	flush()
	os.Exit(code)
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "stxgraph: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "stxgraph indexes the Stacks blockchain into PostgreSQL and serves it over GraphQL and REST.")
	fmt.Fprintln(w, "\nUsage: stxgraph <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-20s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'stxgraph <command> --help' for the flags of a command.")
}

func versionCommand(_ []string, stdout, _ io.Writer) int {
	fmt.Fprintln(stdout, "stxgraph", version)
	return 0
}
