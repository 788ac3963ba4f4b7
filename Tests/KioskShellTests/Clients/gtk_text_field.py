#!/usr/bin/python3
"""A GTK 4 window with a text entry (focused at start) and a button below it.

Prints, flushed, for the test that drives it:
  bounds entry X Y W H / bounds button X Y W H   once mapped, in surface coordinates
  text:TEXT                                       on every change of the entry
  clicked                                         when the button is clicked
"""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import GLib, Gtk  # noqa: E402

loop = GLib.MainLoop()
window = Gtk.Window(title="text field")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=24)
box.set_margin_top(40)
box.set_margin_start(40)
box.set_margin_end(40)
entry = Gtk.Entry()
button = Gtk.Button(label="Done")
box.append(entry)
box.append(button)
window.set_child(box)
entry.connect("changed", lambda e: print("text:" + e.get_text(), flush=True))
button.connect("clicked", lambda b: print("clicked", flush=True))
window.connect("close-request", lambda w: loop.quit())


def report_bounds():
    # Widget bounds are in the window's coordinates; the surface may have a margin around it.
    dx, dy = window.get_surface_transform()
    for name, widget in (("entry", entry), ("button", button)):
        ok, rect = widget.compute_bounds(window)
        if not ok or rect.get_width() == 0:
            return True
    for name, widget in (("entry", entry), ("button", button)):
        ok, rect = widget.compute_bounds(window)
        print(f"bounds {name} {rect.get_x() + dx:.0f} {rect.get_y() + dy:.0f} "
              f"{rect.get_width():.0f} {rect.get_height():.0f}", flush=True)
    return False


window.present()
entry.grab_focus()
GLib.timeout_add(100, report_bounds)
loop.run()
