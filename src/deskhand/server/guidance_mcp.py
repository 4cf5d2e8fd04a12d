"""The bundled Skill for MCP clients: the guidance documents as resources, and one prompt.

Resources ``deskhand://guidance/SKILL.md``, ``.../linux.md`` and ``.../macos.md`` hold the
documents as shipped in the package. The ``deskhand`` prompt is the entry document followed by
the one platform document that the entry selects from the server's own tools listing
(``_meta.platform``), the same value a client reads there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from deskhand import guidance
from deskhand.core.errors import NativeError

PREFIX = "deskhand://guidance/"
PROMPT = "deskhand"
MIME = "text/markdown"


def resource_uris() -> dict[str, str]:
    """uri -> document name, for every shipped guidance document."""
    return {f"{PREFIX}{filename}": name for name, filename in guidance.DOCUMENTS.items()}


def prompt_text(platform: str) -> str:
    """The entry, then exactly one platform document for ``platform`` (ValueError for an unknown one)."""
    return f"{guidance.load('entry').rstrip()}\n\n---\n\n{guidance.selected(platform)}"


def handlers(platform: Callable[[], str]) -> dict[str, Any]:
    """The low-level server's prompt and resource handlers; ``platform()`` reads the listing's at each call."""

    async def list_resources(_ctx: Any, _params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        rows = [
            types.Resource(name=name, uri=uri, mime_type=MIME, description=f"deskhand guidance: {name}")
            for uri, name in resource_uris().items()
        ]
        return types.ListResourcesResult(resources=rows)

    async def read_resource(_ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        name = resource_uris().get(str(params.uri))
        if name is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"no deskhand resource {params.uri}")
        text = guidance.load(name)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, mime_type=MIME, text=text)]
        )

    async def list_prompts(_ctx: Any, _params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        prompt = types.Prompt(name=PROMPT, description="How to operate desktop apps with deskhand on this platform.")
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(_ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != PROMPT:
            raise MCPError(code=types.INVALID_PARAMS, message=f"no deskhand prompt {params.name!r}")
        try:
            text = prompt_text(platform())
        except (ValueError, NativeError) as err:
            raise MCPError(code=types.INVALID_PARAMS, message=str(err)) from None
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        return types.GetPromptResult(description="deskhand guidance", messages=[message])

    return {
        "on_list_resources": list_resources,
        "on_read_resource": read_resource,
        "on_list_prompts": list_prompts,
        "on_get_prompt": get_prompt,
    }
