"""The openbox configuration of deskhand's own desktop.

Openbox's stock ``rc.xml`` binds Press -> Focus/Raise on the "Client" context. Openbox installs
those bindings as *synchronous* passive button grabs on every client window: each press freezes
the pointer until openbox replays it to the app, and XTest motions posted during the freeze reach
the app with the pointer's final position, so a drag's path is lost. This configuration keeps what
deskhand needs from a window manager (EWMH, activation and focus through ``_NET_ACTIVE_WINDOW``,
focus for new windows, frames and titlebars) and nothing that sits between XTest and the app:

- no mouse bindings on the client window (no grab of any kind on it) and none on the frame
  (openbox grabs those on the frame window, an ancestor of the client);
- no key bindings (openbox grabs them on the root window; alt+tab and friends reach the app);
- no animations, one workspace, no focus-follows-mouse.

Titlebar and border bindings stay: they act on decoration windows only, never on app content.
The file is written into the desktop's private runtime dir and passed with ``--config-file``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

__all__ = ()

RC_XML: Final = """\
<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <focus>
    <focusNew>yes</focusNew>
    <followMouse>no</followMouse>
    <focusLast>yes</focusLast>
    <underMouse>no</underMouse>
    <raiseOnFocus>no</raiseOnFocus>
  </focus>
  <placement>
    <policy>Smart</policy>
    <center>yes</center>
    <monitor>Primary</monitor>
  </placement>
  <theme>
    <name>Clearlooks</name>
    <titleLayout>NLIMC</titleLayout>
    <keepBorder>yes</keepBorder>
    <animateIconify>no</animateIconify>
  </theme>
  <desktops>
    <number>1</number>
    <popupTime>0</popupTime>
  </desktops>
  <resize>
    <drawContents>yes</drawContents>
    <popupShow>Never</popupShow>
  </resize>
  <margins><top>0</top><bottom>0</bottom><left>0</left><right>0</right></margins>
  <dock><noStrut>yes</noStrut><autoHide>no</autoHide></dock>
  <keyboard></keyboard>
  <mouse>
    <dragThreshold>1</dragThreshold>
    <doubleClickTime>500</doubleClickTime>
    <screenEdgeWarpTime>0</screenEdgeWarpTime>
    <context name="Titlebar">
      <mousebind button="Left" action="Drag"><action name="Move"/></mousebind>
      <mousebind button="Left" action="DoubleClick"><action name="ToggleMaximize"/></mousebind>
    </context>
    <context name="Titlebar Top Right Bottom Left TLCorner TRCorner BRCorner BLCorner">
      <mousebind button="Left" action="Press">
        <action name="Focus"/><action name="Raise"/><action name="Unshade"/>
      </mousebind>
    </context>
    <context name="Top"><mousebind button="Left" action="Drag"><action name="Resize"/></mousebind></context>
    <context name="Left"><mousebind button="Left" action="Drag"><action name="Resize"/></mousebind></context>
    <context name="Right"><mousebind button="Left" action="Drag"><action name="Resize"/></mousebind></context>
    <context name="Bottom"><mousebind button="Left" action="Drag"><action name="Resize"/></mousebind></context>
    <context name="TRCorner BRCorner TLCorner BLCorner">
      <mousebind button="Left" action="Drag"><action name="Resize"/></mousebind>
    </context>
    <context name="Close">
      <mousebind button="Left" action="Click"><action name="Close"/></mousebind>
    </context>
    <context name="Maximize">
      <mousebind button="Left" action="Click"><action name="ToggleMaximize"/></mousebind>
    </context>
    <context name="Iconify">
      <mousebind button="Left" action="Click"><action name="Iconify"/></mousebind>
    </context>
  </mouse>
  <menu><hideDelay>0</hideDelay><showIcons>no</showIcons></menu>
  <applications></applications>
</openbox_config>
"""


def write_config(directory: Path) -> Path:
    """Write the configuration into ``directory`` (the desktop's private runtime dir)."""
    path = directory / "openbox-rc.xml"
    path.write_text(RC_XML, encoding="utf-8")
    path.chmod(0o600)
    return path
