"""What the benchmark scripts share about the processes they start."""
import signal
import subprocess


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
