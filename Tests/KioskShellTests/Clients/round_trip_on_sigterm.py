#!/usr/bin/python3
"""A Wayland client, speaking the wire protocol itself, that makes a round trip (wl_display.sync)
when it starts and another when it gets SIGTERM, then exits with status 0.

Appends to the file named by its argument, line by line:
  connected              once its first round trip was answered
  answered               when the round trip after SIGTERM was answered
  not answered: ERROR    when it was not (the compositor had closed the connection)
"""
import os
import signal
import socket
import struct
import sys

# Blocked from the start, so that SIGTERM waits for sigwait below whenever it comes.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
record = open(sys.argv[1], "a", buffering=1)
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(os.path.join(os.environ["XDG_RUNTIME_DIR"], os.environ["WAYLAND_DISPLAY"]))


def receive(count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise ConnectionError("the compositor closed the connection")
        data += chunk
    return data


def round_trip(callback):
    # wl_display (object 1), request 0: sync(new_id callback), 12 bytes in host byte order.
    connection.sendall(struct.pack("=III", 1, 12 << 16, callback))
    while True:
        sender, size_and_opcode = struct.unpack("=II", receive(8))
        receive((size_and_opcode >> 16) - 8)
        # wl_callback.done (event 0) of our callback.
        if sender == callback and size_and_opcode & 0xFFFF == 0:
            return


round_trip(2)
record.write("connected\n")
signal.sigwait({signal.SIGTERM})
try:
    round_trip(3)
    record.write("answered\n")
except OSError as error:
    record.write(f"not answered: {error}\n")
