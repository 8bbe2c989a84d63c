package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"time"

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
		{"migrate help", []string{"migrate", "--help"}, 0, "", "up|down|status"},
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

// Environment variables fill the flags the command line leaves unset; malformed ones stop the
// command with a message naming the variable instead of being ignored.
func TestEnvironmentConfiguration(t *testing.T) {
	t.Setenv("STACKS_BLOCKCHAIN_API_PORT", "4100")
	t.Setenv("STACKS_CHAIN_ID", "0x00000001")
	t.Setenv("ENABLE_DEPRECATED_ENDPOINTS", "0")
	t.Setenv("STXGRAPH_GRAPHQL_TIMEOUT", "3s")
	t.Setenv("PG_CONNECTION_POOL_MAX", "5")
	cfg, err := parseServe("--port", "4200")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.apiPort != 4200 || cfg.chainID != 1 || cfg.deprecatedEndpoints || cfg.graphql.timeout != 3*time.Second || cfg.eventPort != 3700 ||
		cfg.pool().MaxOpen != 5 {
		t.Errorf("config = %+v: want flag port 4200 over env, mainnet chain id, deprecated off, 3s timeout, default event port, 5 connections", cfg)
	}
	for env, value := range map[string]string{
		"STACKS_BLOCKCHAIN_API_PORT":   "not-a-port",
		"STACKS_CHAIN_ID":              "testnet",
		"STACKS_CORE_EVENT_BODY_LIMIT": "1GB",
		"STXGRAPH_GRAPHQL_TIMEOUT":     "10",
		"PG_CONNECTION_POOL_MAX":       "0",
	} {
		t.Setenv(env, value)
		if _, err := parseServe(); err == nil || !strings.Contains(err.Error(), env) {
			t.Errorf("%s=%q: error %v, want one naming the variable", env, value, err)
		}
		os.Unsetenv(env)
	}
}

// parseServe reads the serve command's settings from args and the environment.
func parseServe(args ...string) (*config, error) {
	var cfg config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.serveFlags(fs)
	return &cfg, parseFlags(fs, args)
}
