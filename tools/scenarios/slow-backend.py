#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A slow backend, as an application server under load is: every request is
answered "ok" after a fixed delay, then the connection is closed (it answers
HTTP/1.1 with "Connection: close", so it closes first and keeps the
TIME_WAIT). One process, asyncio, a listen queue of 4096 of its own.
    slow-backend.py PORT DELAY_MS"""
import asyncio
import sys

RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
            b"Connection: close\r\n\r\nok\n")


async def serve(reader, writer, delay):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length" and int(value) > 0:
                await reader.readexactly(int(value))
        await asyncio.sleep(delay)
        writer.write(RESPONSE)
        await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def main(port, delay):
    server = await asyncio.start_server(lambda r, w: serve(r, w, delay), "127.0.0.1", port,
                                        backlog=4096)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: slow-backend.py PORT DELAY_MS")
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]) / 1000))
