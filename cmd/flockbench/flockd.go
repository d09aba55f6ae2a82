// This file holds the flockd child process: building it, starting it with
// flockbench's configuration, waiting until it serves, and stopping it.

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/flockgo/ironflock/internal/childproc"
)

// flockdPackage is built when no -flockd binary is given.
const flockdPackage = "github.com/flockgo/ironflock/cmd/flockd"

// flockdProc is a running flockd.
type flockdProc struct {
	cmd  *exec.Cmd
	dir  string
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done is closed
	log  *childproc.Tail
}

// clientFlockdArgs are the flags of the flockd the client benchmark runs
// on: it keeps no record of the operations, which would grow with them,
// and serves no console.
var clientFlockdArgs = []string{"-no-record", "-no-console"}

// startFlockd starts flockd (bin, or a fresh build when bin is empty) in a
// temporary directory with clientFlockdArgs and returns once it serves its
// fleet.
func startFlockd(ctx context.Context, bin string) (*flockdProc, *fleet, error) {
	return startFlockdArgs(ctx, bin, clientFlockdArgs...)
}

// buildFlockd builds cmd/flockd into dir and returns the binary's path.
func buildFlockd(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "flockd")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, flockdPackage).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build flockd (run flockbench inside the repository, or pass -flockd or -flockd-env): %w\n%s", err, out)
	}
	return bin, nil
}

// startFlockdArgs starts flockd (bin, or a fresh build when bin is empty)
// in a temporary directory with args beside its listen address,
// configuration and environment file, and returns once it serves its
// fleet.
func startFlockdArgs(ctx context.Context, bin string, args ...string) (_ *flockdProc, _ *fleet, err error) {
	dir, err := os.MkdirTemp("", "flockbench-")
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	if bin == "" {
		if bin, err = buildFlockd(ctx, dir); err != nil {
			return nil, nil, err
		}
	}
	cfg := filepath.Join(dir, "flockd.yml")
	if err := os.WriteFile(cfg, []byte(flockdConfig), 0o600); err != nil {
		return nil, nil, err
	}
	envPath := filepath.Join(dir, "env.json")
	p := &flockdProc{dir: dir, done: make(chan struct{}), log: &childproc.Tail{Max: 16 << 10}}
	p.cmd = exec.Command(bin, append([]string{"-listen", "127.0.0.1:0", "-config", cfg, "-env-file", envPath}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	p.cmd.SysProcAttr = childAttr()
	if err := p.cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start flockd: %w", err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	f, err := p.waitReady(ctx, envPath)
	if err != nil {
		p.stop()
		return nil, nil, err
	}
	return p, f, nil
}

// waitReady polls for the environment file and then for an answer of the
// HTTP endpoint, until flockd serves, exits, or a minute has passed.
func (p *flockdProc) waitReady(ctx context.Context, envPath string) (*fleet, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var f *fleet
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("flockd not ready: %w\n%s", ctx.Err(), p.log)
		case <-p.done:
			return nil, fmt.Errorf("flockd exited early: %v\n%s", p.err, p.log)
		case <-tick.C:
		}
		if f == nil {
			if _, err := os.Stat(envPath); err != nil {
				continue
			}
			var err error
			if f, err = readFleet(envPath); err != nil {
				return nil, err
			}
		}
		if childproc.HTTPOK(ctx, f.HTTPURL+"/v1/platform/openapi.json") {
			return f, nil
		}
	}
}

// stop ends flockd (SIGTERM, then SIGKILL after 5 s) and removes its
// directory.
func (p *flockdProc) stop() {
	terminate(p.cmd.Process, p.done, 5*time.Second)
	_ = os.RemoveAll(p.dir)
}

// terminate asks proc to stop and kills it when it has not exited (done
// closed) within grace.
func terminate(proc *os.Process, done <-chan struct{}, grace time.Duration) {
	select {
	case <-done:
		return
	default:
	}
	if err := proc.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		_ = proc.Kill()
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		_ = proc.Kill()
		<-done
	}
}
