package rest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stxgraph/stxgraph/rest"
)

// TestClientContract runs the reference API's own npm client against a loopback stxgraph
// (make rest-contract-deps installs it; without node_modules the test skips, under CI=true it
// fails when npm is available).
func TestClientContract(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "contract")
	node, err := exec.LookPath("node")
	if _, statErr := os.Stat(filepath.Join(dir, "node_modules")); err != nil || statErr != nil {
		if _, npmErr := exec.LookPath("npm"); npmErr == nil && os.Getenv("CI") == "true" {
			t.Fatal("node_modules missing: run npm ci --prefix rest/testdata/contract")
		}
		t.Skip("node or rest/testdata/contract/node_modules missing")
	}
	srv := serve(t, replay(t, "mocknet"), rest.Options{ServerVersion: "contract"})
	out, err := exec.Command(node, filepath.Join(dir, "contract.mjs"), srv.URL).CombinedOutput()
	if err != nil {
		t.Fatalf("contract test failed: %v\n%s", err, out)
	}
}
