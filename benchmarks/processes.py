"""What the benchmark scripts share about the processes they start."""
import os
import signal
import socket
import subprocess
import time


def stop(process, grace):
    """Asks `process` to end (SIGTERM) and kills it when it has not within `grace` seconds."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_until_listening(path, timeout, alive=lambda: True):
    """Waits until a client can connect to the Unix socket `path` (a compositor's), for at most
    `timeout` seconds and while `alive()` holds; returns whether one could. The socket's file
    appears at bind(), before the compositor's listen(): a client started then fails to connect
    (ECONNREFUSED), so the file alone is no sign. The probe's connection is closed at once (the
    compositor sees a client that comes and goes). Polled every millisecond: a client started
    once this returns begins at most about that much later than one the compositor starts itself."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive():
        if os.path.exists(path):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                try:
                    probe.connect(path)
                    return True
                except (ConnectionRefusedError, FileNotFoundError):
                    pass
        time.sleep(0.001)
    return False
