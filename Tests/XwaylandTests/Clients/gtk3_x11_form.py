#!/usr/bin/python3
"""A GTK 3 window with a text entry (focused at start) and a button, run with GDK_BACKEND=x11.

Prints, flushed, for the test that drives it:
  entry at X Y W H / button at X Y W H   once mapped, in root coordinates
  text:TEXT                              on every change of the entry
  clicked                                when the button is clicked
"""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

window = Gtk.Window(title="vitrine-gtk3")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=24)
box.set_margin_top(40)
box.set_margin_start(40)
box.set_margin_end(40)
entry = Gtk.Entry()
button = Gtk.Button(label="Done")
box.pack_start(entry, False, False, 0)
box.pack_start(button, False, False, 0)
window.add(box)
entry.connect("changed", lambda e: print("text:" + e.get_text(), flush=True))
button.connect("clicked", lambda b: print("clicked", flush=True))
window.connect("destroy", Gtk.main_quit)


def report():
    origin = window.get_window().get_origin()
    for name, widget in (("entry", entry), ("button", button)):
        x, y = widget.translate_coordinates(window, 0, 0)
        allocation = widget.get_allocation()
        print(f"{name} at {origin.x + x} {origin.y + y} {allocation.width} {allocation.height}", flush=True)
    return False


# Reported once the window manager's size has been laid out.
window.connect("map-event", lambda w, e: GLib.timeout_add(500, report))
window.show_all()
entry.grab_focus()
Gtk.main()
