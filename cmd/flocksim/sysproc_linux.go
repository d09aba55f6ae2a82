// This file holds the child process attributes on Linux: flockd is killed
// when flocksim dies, whatever the cause.

package main

import "syscall"

// childAttr makes the kernel kill the child when this process ends.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
