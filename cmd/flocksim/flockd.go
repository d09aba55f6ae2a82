// This file holds the flockd flocksim starts: its generated configuration
// of the scenario's devices, its start on a fixed port, its kill -9 and
// restart in a storm, its stop.

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/flockgo/ironflock/internal/childproc"
)

// flockdPackage is built when neither the scenario nor -flockd names a
// binary.
const flockdPackage = "github.com/flockgo/ironflock/cmd/flockd"

// flockdReadyTimeout bounds a start of flockd: provisioning thousands of
// devices takes a while.
const flockdReadyTimeout = 10 * time.Minute

// flockdProc is the flockd flocksim runs.
type flockdProc struct {
	bin, dir, env string
	args          []string
	log           *childproc.Tail

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// flockdConfig writes the configuration of one project "sim" (swarm key
// 1) with n devices sim-00001…, the app (app key 1, so that the realm
// keeps its name over restarts) with its data template, installed on each
// in stage.
func flockdConfig(n int, app, stage, template string) string {
	var b strings.Builder
	b.WriteString("projects:\n  - name: sim\n    swarm_key: 1\n    devices:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "      - {name: %s}\n", simDeviceName(i))
	}
	fmt.Fprintf(&b, "apps:\n  - name: %s\n    app_key: 1\n    data_template: |\n", app)
	for _, line := range strings.Split(strings.TrimRight(template, "\n"), "\n") {
		b.WriteString("      " + line + "\n")
	}
	b.WriteString("installations:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  - {project: sim, device: %s, app: %s, stage: %s}\n", simDeviceName(i), app, stage)
	}
	return b.String()
}

// simDeviceName is the name of the i-th generated device.
func simDeviceName(i int) string { return fmt.Sprintf("sim-%05d", i) }

// startFlockd builds flockd when bin is empty, writes the configuration
// into a temporary folder and starts flockd there on a free loopback
// port, kept for its restarts; it returns once flockd serves.
func startFlockd(ctx context.Context, spec *flockdSpec, bin string, devices int, app, stage string) (*flockdProc, *envFile, error) {
	dir, err := os.MkdirTemp("", "flocksim-")
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*flockdProc, *envFile, error) {
		_ = os.RemoveAll(dir)
		return nil, nil, err
	}
	if bin == "" {
		bin = spec.Bin
	}
	if bin == "" {
		bin = filepath.Join(dir, "flockd")
		out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, flockdPackage).CombinedOutput()
		if err != nil {
			return fail(fmt.Errorf("build flockd (run flocksim inside the repository, or name a binary with -flockd or flockd.bin): %w\n%s", err, out))
		}
	}
	cfg := filepath.Join(dir, "flockd.yml")
	if err := os.WriteFile(cfg, []byte(flockdConfig(devices, app, stage, spec.DataTemplate)), 0o600); err != nil {
		return fail(err)
	}
	port, err := freePort()
	if err != nil {
		return fail(err)
	}
	p := &flockdProc{bin: bin, dir: dir, env: filepath.Join(dir, "env.json"), log: &childproc.Tail{Max: 32 << 10}}
	p.args = append([]string{"-listen", "127.0.0.1:" + strconv.Itoa(port), "-config", cfg, "-env-file", p.env}, spec.Args...)
	f, err := p.start(ctx)
	if err != nil {
		p.stop()
		return nil, nil, err
	}
	return p, f, nil
}

// freePort returns a loopback port free now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs flockd with p's arguments and waits until it has written its
// environment file and its HTTP endpoint answers.
func (p *flockdProc) start(ctx context.Context) (*envFile, error) {
	_ = os.Remove(p.env)
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start flockd: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, flockdReadyTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var f *envFile
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("flockd not ready: %w\n%s", ctx.Err(), p.log)
		case <-done:
			return nil, fmt.Errorf("flockd exited early: %v\n%s", cmd.ProcessState, p.log)
		case <-tick.C:
		}
		if f == nil {
			if _, err := os.Stat(p.env); err != nil {
				continue
			}
			var err error
			if f, err = readEnvFile(p.env); err != nil {
				return nil, err
			}
		}
		if childproc.HTTPOK(ctx, f.HTTPURL+"/v1/platform/openapi.json") {
			return f, nil
		}
	}
}

// pid is the running flockd's process ID.
func (p *flockdProc) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process.Pid
}

// kill kills flockd with SIGKILL and waits until it has exited.
func (p *flockdProc) kill() {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	_ = cmd.Process.Kill()
	<-done
}

// stop ends flockd (SIGTERM, then SIGKILL after 10 s) and removes its
// folder.
func (p *flockdProc) stop() {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd != nil {
		select {
		case <-done:
		default:
			if err := cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
				_ = cmd.Process.Kill()
			}
			t := time.NewTimer(10 * time.Second)
			select {
			case <-done:
			case <-t.C:
				_ = cmd.Process.Kill()
				<-done
			}
			t.Stop()
		}
	}
	_ = os.RemoveAll(p.dir)
}
