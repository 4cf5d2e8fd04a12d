"""deskhand.host: the gate every native call passes (validation, policy, identity, queue, counters)."""

from deskhand.host.host import HeldQueue, Host, PinnedApp
from deskhand.host.policy import AppPolicy
from deskhand.host.result import ImageBlock, TextBlock, ToolResult, error_result

__all__ = ["AppPolicy", "HeldQueue", "Host", "ImageBlock", "PinnedApp", "TextBlock", "ToolResult", "error_result"]
