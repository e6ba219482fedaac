"""The HTTP server's sockets send small writes at once (TCP_NODELAY): a response's body,
written after its headers, must not wait for the client's delayed ACK (40 ms a call)."""

from __future__ import annotations

import asyncio
import socket

from adbwire.mcp.server.http import bind


def test_accepted_connections_have_nagle_off() -> None:
    async def main() -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        server = await asyncio.get_running_loop().create_server(Probe, sock=bind("127.0.0.1:0"))
        async with server:
            host, port = server.sockets[0].getsockname()[:2]
            _reader, writer = await asyncio.open_connection(host, port)
            try:
                return await asyncio.wait_for(accepted, 30)
            finally:
                writer.close()

    assert asyncio.run(main()) != 0
