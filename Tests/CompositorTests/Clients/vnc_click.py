#!/usr/bin/python3
"""Clicks once through a VNC server with Debian's libvncclient: connects to the server's UNIX
socket (argv[1]), takes the first framebuffer, then moves the pointer to (argv[2], argv[3]),
presses the left button and releases it. Prints each step; exits 1 if the server cannot be
reached or hangs up."""
import ctypes
import sys
import time

vnc = ctypes.CDLL("libvncclient.so.1")
vnc.rfbGetClient.restype = ctypes.c_void_p
vnc.rfbGetClient.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
vnc.rfbInitClient.restype = ctypes.c_int8
vnc.rfbInitClient.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_char_p)]
vnc.WaitForMessage.restype = ctypes.c_int
vnc.WaitForMessage.argtypes = [ctypes.c_void_p, ctypes.c_uint]
vnc.HandleRFBServerMessage.restype = ctypes.c_int8
vnc.HandleRFBServerMessage.argtypes = [ctypes.c_void_p]
vnc.SendPointerEvent.restype = ctypes.c_int8
vnc.SendPointerEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
vnc.rfbClientCleanup.argtypes = [ctypes.c_void_p]

socket_path, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

# 8 bits per sample, 3 samples, 4 bytes per pixel; a server address that names a UNIX socket
# is connected to as one.
client = vnc.rfbGetClient(8, 3, 4)
argv = (ctypes.c_char_p * 2)(b"vnc_click", socket_path.encode())
argc = ctypes.c_int(2)
if not vnc.rfbInitClient(client, ctypes.byref(argc), argv):
    print("cannot connect", flush=True)
    sys.exit(1)
print("connected", flush=True)


def pump(seconds):
    """Handles what the server sends for `seconds`; False once it hung up."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        waiting = vnc.WaitForMessage(client, 50_000)
        if waiting < 0:
            return False
        if waiting > 0 and not vnc.HandleRFBServerMessage(client):
            return False
    return True


if not pump(1.0):
    print("server hung up", flush=True)
    sys.exit(1)
vnc.SendPointerEvent(client, x, y, 0)
pump(0.2)
vnc.SendPointerEvent(client, x, y, 1)
pump(0.2)
vnc.SendPointerEvent(client, x, y, 0)
print("clicked", flush=True)
pump(0.5)
vnc.rfbClientCleanup(client)
