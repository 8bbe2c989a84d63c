package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db/dbtest"
)

func TestCommandLine(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // substring expected on stdout
		stderr string // substring expected on stderr
	}{
		{"no command prints usage", nil, 2, "Usage: stxgraph <command>", ""},
		{"help", []string{"--help"}, 0, "serve", ""},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"version", []string{"version"}, 0, "stxgraph dev", ""},
		{"serve help", []string{"serve", "--help"}, 0, "", "event-observer"},
		{"migrate without action", []string{"migrate"}, 2, "", "up|down|status"},
		{"migrate bad action", []string{"migrate", "sideways", "--database-url", url}, 2, "", "up|down|status"},
		{"migrate status", []string{"migrate", "status", "--database-url", url}, 0, "applied", ""},
		{"migrate up is a no-op when current", []string{"migrate", "up", "--database-url", url}, 0, "applied 0 migration(s)", ""},
		{"migrate against a closed port", []string{"migrate", "status", "--database-url", "postgres://127.0.0.1:1/x?sslmode=disable"}, 1, "", "stxgraph migrate:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout %q lacks %q", stdout.String(), tc.stdout)
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.stderr)
			}
		})
	}
}
