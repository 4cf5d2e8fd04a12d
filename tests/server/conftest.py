"""Server-level test setup: a Service over the fake executor, a fake js kernel, and MCP clients.

Every test here drives :class:`deskhand.server.service.Service` (directly, or through the MCP
server it backs) over :class:`deskhand.backends.fake.FakeExecutor`, so no display is needed. The
policy is always the built-in defaults (``AppPolicy()``), never a policy file from the environment.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field

import pytest
from mcp import Client

from deskhand.backends.fake import FakeApp, FakeExecutor
from deskhand.host import AppPolicy, Host
from deskhand.host.host import HeldQueue
from deskhand.host.result import ImageBlock, TextBlock, ToolResult
from deskhand.server.mcp import build_server
from deskhand.server.service import Service

#: A PNG signature: the fake kernel emits it with its true MIME type, to tell it from the JPEG path.
PNG_BYTES = b"\x89PNG\r\n\x1a\nfake-png"

MOUSEPAD = "Mousepad"
XTERM = "XTerm"


def scripted_apps() -> list[FakeApp]:
    """An allowed editor, a terminal on the Linux deny list, and an app denied by its executable's name."""
    return [
        FakeApp(MOUSEPAD, "org.xfce.mousepad", pid=4242),
        FakeApp(XTERM, "xterm", pid=5151),
        FakeApp("Shell", "com.example.Shell", pid=6161, executable="/usr/bin/kitty"),
    ]


Script = Callable[[HeldQueue, str], Awaitable[ToolResult]]


async def _emit_text_and_png(_queue: HeldQueue, code: str) -> ToolResult:
    return ToolResult((TextBlock(f"ran {len(code)} chars"), ImageBlock(PNG_BYTES, "image/png")))


@dataclass
class FakeKernel:
    """A stand-in for a js kernel session: runs ``script`` while holding the host's session queue."""

    host: Host
    script: Script
    runs: list[tuple[str, int]] = field(default_factory=list)
    resets: int = 0
    closed: bool = False

    async def run(self, code: str, *, timeout_ms: int, progress: object = None) -> ToolResult:
        self.runs.append((code, timeout_ms))
        async with self.host.session_lock() as queue:
            return await self.script(queue, code)

    async def reset(self) -> None:
        self.resets += 1

    async def close(self) -> None:
        self.closed = True


@dataclass
class KernelFactory:
    """Counts kernel creations; a test asserts it was never called for invalid js arguments."""

    host: Host
    script: Script = _emit_text_and_png
    made: list[FakeKernel] = field(default_factory=list)

    def __call__(self, host: object = None) -> FakeKernel:
        kernel = FakeKernel(self.host, self.script)
        self.made.append(kernel)
        return kernel


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def executor() -> FakeExecutor:
    return FakeExecutor(scripted_apps())


@pytest.fixture
def host(executor: FakeExecutor) -> Host:
    return Host(executor, policy=AppPolicy())


@pytest.fixture
def kernels(host: Host) -> KernelFactory:
    return KernelFactory(host)


@pytest.fixture
def service(host: Host, kernels: KernelFactory) -> Service:
    """The default face: `js` and `js_reset` advertised, the semantic tools accepted but not listed."""
    return Service(host, kernels)


@pytest.fixture
def semantic_service(host: Host, kernels: KernelFactory) -> Service:
    """The same service with the semantic tools and `sequence` advertised too."""
    return Service(host, kernels, advertise_semantic=True)


@asynccontextmanager
async def _connect(service: Service) -> AsyncIterator[Client]:
    async with Client(build_server(service)) as client:
        yield client


@pytest.fixture
def connect() -> Callable[[Service], AbstractAsyncContextManager[Client]]:
    """``async with connect(service) as client``: a real MCP client, in memory, on ``build_server(service)``."""
    return _connect
