// Package txtest checks transactions against @stacks/transactions, the reference
// implementation, which node runs from the npm project in stacks/tx/testdata/crosscheck.
package txtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// StacksJSVersion is the @stacks/transactions release the cross-checks pin.
const StacksJSVersion = "7.6.0"

// StacksJS sends input as JSON to crosscheck.mjs ({"sign": [...], "decode": [...]}) and decodes
// its answer into out. Without node or the npm packages (`make crosscheck-deps`) the test is
// skipped, and fails under CI=true, where they must be installed.
func StacksJS(t testing.TB, input, out any) {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "..", "testdata", "crosscheck")
	missing := func(msg string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed; skipping the @stacks/transactions cross-check")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@stacks", "transactions")); err != nil {
		missing("run `make crosscheck-deps` to enable the @stacks/transactions cross-check")
	}
	in, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "crosscheck.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	answer, err := cmd.Output()
	if err != nil {
		t.Fatalf("node crosscheck.mjs: %v\n%s", err, stderr.String())
	}
	var v struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(answer, &v); err != nil {
		t.Fatalf("crosscheck output: %v\n%s", err, answer)
	}
	if v.Version != StacksJSVersion {
		t.Fatalf("@stacks/transactions %s is installed, the cross-check pins %s", v.Version, StacksJSVersion)
	}
	if err := json.Unmarshal(answer, out); err != nil {
		t.Fatalf("crosscheck output: %v\n%s", err, answer)
	}
}
