#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The two ends of a listen queue that overflows, as separate processes.

server: listens with a small backlog and accepts slowly (--count 0: never),
        closing each connection it accepts; keeps its listener --hold more
        seconds after, or until SIGUSR1, closes it, and runs --linger more
        seconds. With
        --close-after it closes its listener that many seconds after the
        first accept instead, so that its drops must be read from the close.
        --defer sets TCP_DEFER_ACCEPT (nginx's deferred, haproxy's
        defer-accept). Prints how many it accepted, and of those how
        many had a handshake of more than a second (slow_handshake).
burst:  opens --count connections at once (non-blocking connects), waits at
        most --timeout seconds in all for each to connect or fail, sends a
        byte on each (none with --silent) and waits for the server's close,
        then closes them;
        prints how many connected and ended.
Every wait is bounded; both print one summary line of key=value pairs.
"""
import argparse
import errno
import select
import signal
import socket
import struct
import sys
import time


def slow_handshake(conn):
    """Whether the handshake of an accepted connection took more than a
    second as the kernel saw it, read from tcp_info before the connection
    sends anything: its SYN-ACK was sent again (tcpi_total_retrans, which a
    child starts from its request's), or the RTT the kernel measured from
    its SYN-ACK (tcpi_rtt, its first and only sample then) is above 1 s (a
    SYN cookie's connection whose ACK was dropped, made when the client sent
    again)."""
    info = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    rtt_us, total_retrans = struct.unpack_from("I", info, 68)[0], struct.unpack_from("I", info, 100)[0]
    return total_retrans > 0 or rtt_us > 1000000


def accept_slowly(lfd, a):
    accepted = 0
    first = None
    deadline = time.monotonic() + a.timeout
    lfd.settimeout(0.1)
    while accepted < a.count and time.monotonic() < deadline and not signal.sigpending():
        if first is not None and a.close_after and time.monotonic() - first >= a.close_after:
            break
        try:
            conn, _ = lfd.accept()
        except socket.timeout:
            continue
        accepted += 1
        a.slow_handshakes += slow_handshake(conn)
        first = first or time.monotonic()
        conn.close()
        time.sleep(a.accept_every / 1000)
    return accepted


def server(a):
    lfd = socket.socket(socket.AF_INET6 if ":" in a.addr else socket.AF_INET)
    lfd.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lfd.bind((a.addr, a.port))
    if a.defer:
        lfd.setsockopt(socket.IPPROTO_TCP, socket.TCP_DEFER_ACCEPT, a.defer)
    lfd.listen(a.backlog)
    with open(a.ready, "w") as f:
        f.write("ready\n")
    accepted = accept_slowly(lfd, a)
    if not a.close_after:
        signal.sigtimedwait([signal.SIGUSR1], a.hold)
    lfd.close()
    time.sleep(a.linger)
    print(f"role=server accepted={accepted} slow_handshakes={a.slow_handshakes}")


def burst(a):
    family = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
    socks, waiting = [], {}
    poller = select.poll()
    for _ in range(a.count):
        s = socket.socket(family)
        s.setblocking(False)
        err = s.connect_ex((a.addr, a.port))
        if err not in (0, errno.EINPROGRESS):
            s.close()
            continue
        socks.append(s)
        waiting[s.fileno()] = s
        poller.register(s, select.POLLOUT)
    connected = failed = 0
    deadline = time.monotonic() + a.timeout
    while waiting and time.monotonic() < deadline:
        left = max(0, deadline - time.monotonic())
        for fd, _ in poller.poll(int(left * 1000) + 1):
            s = waiting.pop(fd)
            poller.unregister(fd)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                connected += 1
            else:
                failed += 1
    # A byte on each, then the server's close: a connection the server side
    # dropped the last ACK of (a SYN cookie's) comes into being with it.
    ended = 0
    for s in socks:
        if s.fileno() in waiting or s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
            continue
        try:
            if not a.silent:
                s.send(b"x")
        except OSError:
            continue
        poller.register(s, select.POLLIN)
    while ended < connected and time.monotonic() < deadline:
        left = max(0, deadline - time.monotonic())
        events = poller.poll(int(left * 1000) + 1)
        for fd, _ in events:
            poller.unregister(fd)
            ended += 1
    for s in socks:
        s.close()
    print(f"role=burst connected={connected} failed={failed} waiting={len(waiting)} ended={ended}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("role", choices=("server", "burst"))
    p.add_argument("--addr", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--timeout", type=float, default=10)
    p.add_argument("--backlog", type=int, default=4)
    p.add_argument("--accept-every", type=float, default=50, help="ms between accepts")
    p.add_argument("--close-after", type=float, default=0)
    p.add_argument("--hold", type=float, default=0)
    p.add_argument("--defer", type=int, default=0, help="TCP_DEFER_ACCEPT seconds")
    p.add_argument("--linger", type=float, default=0)
    p.add_argument("--ready", default="/dev/null")
    p.add_argument("--silent", action="store_true",
                   help="burst: send nothing; a last ACK dropped is made good only by the server")
    a = p.parse_args()
    a.slow_handshakes = 0
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    server(a) if a.role == "server" else burst(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
