// This file holds the child process attributes on Linux: a child is killed
// when flockbench dies, whatever the cause.

package main

import "syscall"

// childAttr makes the kernel kill the child when this process ends.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
