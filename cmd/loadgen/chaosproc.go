package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// process is an stxgraph process the chaos run starts, kills and starts again, its output
// appended to one log file across restarts.
type process struct {
	name  string
	bin   string
	args  []string
	env   []string
	log   string
	ready string // a URL that answers 200 once the process serves

	mu  sync.Mutex
	cmd *exec.Cmd
}

// start starts the process and waits until it serves.
func (p *process) start(ctx context.Context) error {
	log, err := os.OpenFile(p.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(p.bin, p.args...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	p.mu.Lock()
	p.cmd = cmd
	p.mu.Unlock()
	if err := awaitOK(ctx, p.ready, time.Minute); err != nil {
		return fmt.Errorf("%s did not start (log %s): %w", p.name, p.log, err)
	}
	return nil
}

// signal sends sig and waits for the process to end.
func (p *process) signal(sig syscall.Signal) {
	p.mu.Lock()
	cmd := p.cmd
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(sig) //nolint:errcheck // it may have ended
	cmd.Wait()              //nolint:errcheck // killed on purpose
}

// kill ends the process at once, as a crash or the OOM killer does.
func (p *process) kill() { p.signal(syscall.SIGKILL) }

// stop ends the process gracefully.
func (p *process) stop() { p.signal(syscall.SIGTERM) }

// awaitOK polls url until it answers 200, for up to d.
func awaitOK(ctx context.Context, url string, d time.Duration) error {
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(d)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %w", url, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
