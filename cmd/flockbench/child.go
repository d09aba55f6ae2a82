// This file holds childProc: a child process flockbench talks to in lines
// (the callee, the subscriber, the footprint programs), killed with
// flockbench whatever the cause; and what flockbench's own child modes
// share: their device environment and their SDK client.

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/childproc"
)

// childProc is a started child process: its standard output is read as
// lines, its standard error kept as its log.
type childProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string   // the lines of its standard output
	done  chan struct{} // closed once it has exited
	log   *childproc.Tail
}

// startChild starts cmd, whose standard streams it takes.
func startChild(cmd *exec.Cmd) (*childProc, error) {
	p := &childProc{cmd: cmd, lines: make(chan string, 16), done: make(chan struct{}), log: &childproc.Tail{Max: 16 << 10}}
	cmd.Stderr = p.log
	cmd.SysProcAttr = childAttr()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default: // 16 lines nobody read: the child is not waited on
			}
		}
		_ = cmd.Wait() // after the pipe is drained, as exec requires
		close(p.done)
	}()
	return p, nil
}

// expect returns the rest of the next line starting with prefix (other
// lines are skipped), or an error with the child's log when it exits or
// ctx ends first.
func (p *childProc) expect(ctx context.Context, prefix string) (string, error) {
	for {
		select {
		case l := <-p.lines:
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				return rest, nil
			}
		case <-p.done:
			return "", fmt.Errorf("%s exited before printing %q:\n%s", p.cmd.Path, prefix, p.log)
		case <-ctx.Done():
			return "", errors.Join(ctx.Err(), fmt.Errorf("%s did not print %q:\n%s", p.cmd.Path, prefix, p.log))
		}
	}
}

// stop ends the child: its standard input closes, then SIGINT, and
// SIGKILL if it lingers.
func (p *childProc) stop() {
	_ = p.stdin.Close()
	terminate(p.cmd.Process, p.done, 5*time.Second)
}

// startSelf starts flockbench again with flag (its child mode) and the
// device environment env, as JSON in the environment variable envVar.
func startSelf(flag, envVar string, env map[string]string) (*childProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, flag)
	cmd.Env = append(os.Environ(), envVar+"="+string(b))
	return startChild(cmd)
}

// childEnv reads the device environment startSelf passed in envVar.
func childEnv(envVar string) (map[string]string, error) {
	var env map[string]string
	if err := json.Unmarshal([]byte(os.Getenv(envVar)), &env); err != nil {
		return nil, fmt.Errorf("%s: %w", envVar, err)
	}
	return env, nil
}

// startClient starts an SDK client with the device environment env; stop
// stops it (within 5 s).
func startClient(ctx context.Context, env map[string]string) (c *client.Client, stop func(), err error) {
	if c, err = client.New(client.WithEnv(env)); err != nil {
		return nil, nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, nil, err
	}
	return c, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Stop(sctx)
	}, nil
}

// childLogs are the logs of the child processes of a run.
type childLogs []namedLog

type namedLog struct {
	name string
	log  *childproc.Tail
}

func (l *childLogs) add(name string, log *childproc.Tail) { *l = append(*l, namedLog{name, log}) }

// logLines is how many of the last lines of each child's log a failed run
// shows.
const logLines = 15

// explain adds the last lines of each child's log to err, the failure of a
// run: a link a child or flockd dropped says why there.
func (l childLogs) explain(err error) error {
	var b strings.Builder
	for _, c := range l {
		lines := strings.Split(strings.TrimRight(c.log.String(), "\n"), "\n")
		if len(lines) == 1 && lines[0] == "" {
			continue
		}
		lines = lines[max(0, len(lines)-logLines):]
		fmt.Fprintf(&b, "\n%s's log (its end):\n  %s", c.name, strings.Join(lines, "\n  "))
	}
	if b.Len() == 0 {
		return err
	}
	return fmt.Errorf("%w%s", err, b.String())
}
