package main

import "testing"

func TestParseTPS(t *testing.T) {
	t.Parallel()
	// pgbench 15's report.
	out := `pgbench (15.20 (Debian 15.20-0+deb12u1))
transaction type: <builtin: select only>
scaling factor: 10
query mode: simple
number of clients: 32
number of threads: 2
maximum number of tries: 1
duration: 3 s
number of transactions actually processed: 83510
number of failed transactions: 0 (0.000%)
latency average = 1.146 ms
initial connection time = 30.862 ms
tps = 27917.238416 (without initial connection time)
`
	if tps, err := parseTPS(out); err != nil || tps != 27917.238416 {
		t.Errorf("parseTPS = %v, %v", tps, err)
	}
	for _, bad := range []string{"", "tps = \n", "tps = fast (without initial connection time)\n"} {
		if _, err := parseTPS(bad); err == nil {
			t.Errorf("parseTPS(%q) took it", bad)
		}
	}
}
