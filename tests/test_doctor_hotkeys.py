"""``aria doctor``'s hotkey line: where ARIA hears its global hotkeys, and what to do elsewhere."""

from __future__ import annotations

from aria_desktop.doctor.desktop import check_hotkeys


def test_x11_hears_the_hotkeys() -> None:
    line = check_hotkeys({"DISPLAY": ":0"})
    assert (line.status, line.detail) == ("OK", "X11 display :0, through X RECORD")


def test_sway_without_xwayland_points_to_its_own_key_bindings() -> None:
    line = check_hotkeys({"WAYLAND_DISPLAY": "wayland-1", "SWAYSOCK": "/run/sway.sock"})
    assert line.status == "WARN"
    assert "not available on this Wayland desktop" in line.detail
    assert "bindsym --release Ctrl+Mod1+d exec aria dictate release" in line.fix


def test_xwayland_warns_that_only_x11_windows_are_heard() -> None:
    line = check_hotkeys({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"})
    assert line.status == "WARN"
    assert "only while an X11 (XWayland) window has the focus" in line.detail
    assert "tray menu" in line.fix
