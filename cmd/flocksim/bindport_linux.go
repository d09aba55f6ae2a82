// This file holds the socket option that lets many devices share a source
// address on Linux: the port is chosen at connect, by the whole 4-tuple.

package main

import "syscall"

// ipBindAddressNoPort is Linux's IP_BIND_ADDRESS_NO_PORT (linux/in.h),
// which the syscall package does not name.
const ipBindAddressNoPort = 24

// bindNoPort is the devices' net.Dialer Control: a socket bound to a
// source address gets its port at connect, where the kernel needs it
// unique only with the destination, not at bind, where it searches the
// whole ephemeral range for a port no socket holds (with thousands of
// devices, most of a storm's CPU). It is an optimisation only: a kernel
// that refuses the option still dials, so its error is dropped.
func bindNoPort(_, _ string, c syscall.RawConn) error {
	_ = c.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
	})
	return nil
}
