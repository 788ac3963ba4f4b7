#!/usr/bin/env python3
"""Hardware in the loop: a QEMU guest with a real KMS device (virtio-gpu) and real evdev input.

The guest boots Debian's kernel from an initramfs built here (busybox-static plus the few modules it
needs), mounts the host's root file system read-only over 9p and runs one shell script in a chroot
of it, as root, so it runs the binaries just built on the host with the host's Swift runtime, Mesa
and libraries. The host talks QMP to capture what the display scanned out (screendump) and to
inject input (input-send-event). See ../../../shared/hil.md (in the project's shared notes) for
why each piece is what it is.

    guest.py prepare                        fetch and build the kernel and initramfs (cached)
    guest.py run --out DIR SCRIPT           boot, run SCRIPT in the guest, report, power off
    guest.py run --systemd SETUP --out DIR SCRIPT
                                            the same on a whole system booted with systemd
    guest.py run --vkms --out DIR SCRIPT    with vkms loaded too (built out of tree, see vkms.py): a
                                            second card, after virtio-gpu's, whose CRTC counts vblanks

SCRIPT is a POSIX shell script run with /bin/sh in the chroot. Its working directory is the
output folder, shared read-write with the host as /tmp/hil-out, and it may call:

    hil_screendump NAME      capture the scanout to DIR/NAME.png (waits until it is written)
    hil_key KEY...           press and release keys (QEMU qcodes: a, ret, shift, ...)
    hil_move X Y             move the absolute pointer to output pixel (X, Y)
    hil_click [BUTTON]       press and release a button (left, right, middle)
    hil_head N WxH|off       with --heads: plug virtio-gpu's head N with a display of that size, or
                             unplug it (the guest sees a hotplug); head 0 is plugged at boot
    hil_screendump NAME N    with --heads: capture head N's scanout

The serial console (DIR/serial.log) carries the protocol as marker lines: HIL-BEGIN, then the
script's output, then HIL-END <exit status>; requests are "HIL-REQUEST <n> <verb> <args>" and the
host answers each by writing DIR/.hil-ack-<n>.

With --systemd the host's root is the lower layer of an overlay on tmpfs, so the guest may change
anything. The shell script SETUP runs first as root in a chroot of it (DIR/setup.log keeps its
output): it installs what the test boots, as an integrator would; the --share folders are there
for it, and only for it. Then systemd starts as PID 1 into
hil.target (a basic system; SETUP adds units to it with `systemctl add-wants hil.target UNIT`), and
the service hil-driver runs SCRIPT as root with the output folder at /hil-out. Every wait is bounded. On return DIR holds
serial.log, output.txt (the script's output), result.json and the captures; the exit status is the
script's, or 100+ for a harness failure (then stderr says why and DIR keeps what was seen).
"""

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import vkms

CACHE = os.environ.get("VITRINE_HIL_CACHE", "/var/cache/vitrine-hil")
# What the guest's /init loads: the display, the host-root share, and the input devices.
# vgem (after virtio_gpu, which stays card0): buffers that carry fences a test signals.
MODULES = ["virtio_pci", "virtio_gpu", "9pnet_virtio", "9p", "evdev", "virtio_input", "uinput", "overlay", "vgem"]
# QMP's absolute pointer axes range over 0..0x7fff whatever the display's size.
ABSOLUTE_AXIS_MAX = 0x7FFF

# The virtio-gpu device's QOM id when it has several heads (screendump names it with the head).
GPU_ID = "hil-gpu"

EXIT_HARNESS_FAILURE = 100
EXIT_TIMEOUT = 101


class HarnessError(Exception):
    pass


def log(message):
    print(f"hil: {message}", file=sys.stderr, flush=True)


def run_checked(arguments, **kwargs):
    result = subprocess.run(arguments, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise HarnessError(f"{' '.join(arguments)} failed ({result.returncode}): {result.stderr.strip()}")
    return result.stdout


# MARK: - The guest's kernel and initramfs


def kernel_package():
    """The linux-image package that Debian's linux-image-amd64 metapackage names now."""
    text = run_checked(["apt-cache", "depends", "linux-image-amd64"])
    match = re.search(r"Depends:\s*(linux-image-(\d\S*-amd64))", text)
    if not match:
        raise HarnessError(f"apt-cache depends linux-image-amd64 names no kernel (run apt-get update?):\n{text}")
    return match.group(1), match.group(2)


def fetch_kernel():
    """Downloads and unpacks the kernel once; returns (version, unpacked root)."""
    package, version = kernel_package()
    root = os.path.join(CACHE, f"kernel-{version}")
    if os.path.exists(os.path.join(root, "lib/modules", version, "modules.dep")):
        return version, root
    os.makedirs(CACHE, exist_ok=True)
    debs = [f for f in os.listdir(CACHE) if f.startswith(package + "_") and f.endswith(".deb")]
    if not debs:
        log(f"downloading {package} into {CACHE}")
        run_checked(["apt-get", "download", package], cwd=CACHE, timeout=900)
        debs = [f for f in os.listdir(CACHE) if f.startswith(package + "_") and f.endswith(".deb")]
        if not debs:
            raise HarnessError(f"apt-get download {package} left no .deb in {CACHE}")
    # Per-process staging, so that two runs fetching at once do not unpack into each other.
    staging = f"{root}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    run_checked(["dpkg", "-x", os.path.join(CACHE, sorted(debs)[-1]), staging], timeout=600)
    # The .deb ships no modules.dep; modprobe needs it.
    run_checked([find_tool("depmod"), "-b", staging, version], timeout=600)
    try:
        os.rename(staging, root)
    except OSError:
        # Another run finished first: keep its copy.
        shutil.rmtree(staging, ignore_errors=True)
    return version, root


def find_tool(name):
    for directory in os.environ.get("PATH", "").split(":") + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]:
        candidate = os.path.join(directory, name)
        if os.access(candidate, os.X_OK):
            return candidate
    raise HarnessError(f"{name} is missing (apt-get install -y qemu-system-x86 busybox-static kmod)")


def fetch_vkms(version, log_dir):
    """vkms.ko for the guest's kernel, built out of tree once (see vkms.py); a failed build leaves
    its log in log_dir as vkms-build.log."""
    package = f"linux-image-{version}"
    debs = sorted(f for f in os.listdir(CACHE) if f.startswith(package + "_") and f.endswith(".deb"))
    if not debs:
        raise HarnessError(f"no {package} .deb in {CACHE} to build vkms against")
    try:
        return vkms.build(CACHE, version, os.path.join(CACHE, debs[-1]), log, log_dir)
    except vkms.BuildError as error:
        raise HarnessError(str(error)) from error


def module_closure(modules_dir, modules=MODULES):
    """Paths (relative to modules_dir) of `modules` and everything they depend on."""
    dependencies = {}
    with open(os.path.join(modules_dir, "modules.dep")) as file:
        for line in file:
            path, _, rest = line.partition(":")
            dependencies[path] = rest.split()
    by_name = {}
    for path in dependencies:
        name = os.path.basename(path).split(".ko")[0].replace("-", "_")
        by_name[name] = path
    with open(os.path.join(modules_dir, "modules.builtin")) as file:
        builtin = {os.path.basename(line.strip()).split(".ko")[0].replace("-", "_") for line in file}
    needed = set()
    pending = []
    for module in modules:
        name = module.replace("-", "_")
        if name in by_name:
            pending.append(by_name[name])
        elif name not in builtin:
            raise HarnessError(f"the guest kernel has no module {module}")
    while pending:
        path = pending.pop()
        if path not in needed:
            needed.add(path)
            pending.extend(dependencies[path])
    return sorted(needed)


INIT_PRELUDE = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for module in {modules}; do modprobe $module || echo "HIL-FAIL modprobe $module"; done
# Host folders the guest must see where its own mounts hide the host's (a clone under /tmp):
# each hil.share=DIR on the kernel line is the 9p share tagged share0, share1, … in that order.
mount_shares() {
    share=0
    for argument in $(cat /proc/cmdline); do
        case "$argument" in
        hil.share=*)
            folder="${argument#hil.share=}"
            mkdir -p "$1$folder" 2>/dev/null
            mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 "share$share" "$1$folder" \
                || echo "HIL-FAIL mount share $folder"
            share=$((share + 1))
            ;;
        esac
    done
}
"""

# The script runs as root in a chroot of the host's root, read-only but for tmpfs on /tmp and /run.
CHROOT_INIT = r"""
mkdir -p /mnt/host
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot /mnt/host || echo "HIL-FAIL mount hostroot"
mount -t tmpfs -o mode=1777 tmp /mnt/host/tmp
mount -t tmpfs run /mnt/host/run
mkdir -p /mnt/host/tmp/hil-out
# No cache: the guest must see the host's answers to its requests as soon as they are written.
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none,msize=262144 hilout /mnt/host/tmp/hil-out || echo "HIL-FAIL mount hilout"
mount -t devtmpfs dev /mnt/host/dev
mkdir -p /mnt/host/dev/pts /mnt/host/dev/shm
mount -t devpts -o ptmxmode=666 devpts /mnt/host/dev/pts
mount -t tmpfs -o mode=1777 shm /mnt/host/dev/shm
mount -t proc proc /mnt/host/proc
mount -t sysfs sys /mnt/host/sys
mount_shares /mnt/host
mkdir -p -m 700 /mnt/host/tmp/xdg-runtime
mkdir -p /mnt/host/tmp/home
echo HIL-BEGIN
chroot /mnt/host /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/tmp/home XDG_RUNTIME_DIR=/tmp/xdg-runtime LANG=C.UTF-8 TERM=linux \
    /bin/sh -c 'cd /tmp/hil-out && exec /bin/sh /tmp/hil-out/.hil-script.sh' </dev/null
echo "HIL-END $?"
sync
poweroff -f
"""

# A whole system: the host's root under a writable overlay (tmpfs), set up by the caller's setup
# script in a chroot as an integrator would install a device, then booted with systemd as PID 1
# into hil.target, whose hil-driver.service runs the script and powers off.
SYSTEMD_INIT = r"""
mkdir -p /mnt/lower /mnt/rw /mnt/root
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot /mnt/lower || echo "HIL-FAIL mount hostroot"
mount -t tmpfs -o mode=755 rw /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work overlay /mnt/root || echo "HIL-FAIL mount overlay"
# The host is a container (docker): the guest is a machine, and systemd must not think otherwise
# (in a container it ignores the kernel's command line).
rm -f /mnt/root/.dockerenv
# A device's /tmp is empty at boot (systemd-tmpfiles would otherwise empty the host's, file by file).
mount -t tmpfs -o mode=1777 tmp /mnt/root/tmp
mount_shares /mnt/root
mkdir -p /mnt/root/hil-out
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none,msize=262144 hilout /mnt/root/hil-out || echo "HIL-FAIL mount hilout"
mount -t proc proc /mnt/root/proc
mount -t sysfs sys /mnt/root/sys
mount -t devtmpfs dev /mnt/root/dev
chroot /mnt/root /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    /bin/sh -e /hil-out/.hil-setup.sh > /mnt/root/hil-out/setup.log 2>&1 </dev/null || echo "HIL-FAIL setup (see setup.log)"
umount /mnt/root/dev /mnt/root/sys /mnt/root/proc
# The shares serve the setup only: the booted system is the overlay alone (and systemd-tmpfiles
# would walk a share under /tmp when it empties /tmp at boot).
for argument in $(cat /proc/cmdline); do
    case "$argument" in hil.share=*) umount "/mnt/root${argument#hil.share=}" ;; esac
done
echo HIL-SYSTEMD
exec switch_root /mnt/root /lib/systemd/systemd
"""

# What the harness installs in the new root before the caller's setup: the target the guest boots
# (a basic system; graphical.target would start every service the host has enabled) and the
# driver that runs the script with its output on the serial console.
SYSTEMD_SETUP_PRELUDE = r"""cat > /etc/systemd/system/hil.target <<'UNIT'
[Unit]
Description=Vitrine HIL: a basic system, the units the setup adds, and the driver
Requires=basic.target
After=basic.target
Wants=hil-driver.service
AllowIsolate=yes
UNIT
cat > /etc/systemd/system/hil-driver.service <<'UNIT'
[Unit]
Description=Vitrine HIL driver
After=basic.target
[Service]
Type=simple
Environment=HIL_OUT=/hil-out LANG=C.UTF-8
ExecStart=/bin/sh /etc/hil-driver.sh
UNIT
cat > /etc/hil-driver.sh <<'SCRIPT'
exec > /dev/ttyS0 2>&1
echo HIL-BEGIN
cd /hil-out && /bin/sh /hil-out/.hil-script.sh
echo "HIL-END $?"
sync
systemctl poweroff --force --force
SCRIPT
"""


def build_initramfs(boots_systemd=False, with_vkms=False, log_dir=None):
    """Returns (kernel image, initramfs) paths, building the initramfs once per kernel and init.
    with_vkms adds vkms (built out of tree) and loads it after virtio-gpu, which stays card0."""
    version, root = fetch_kernel()
    busybox = "/bin/busybox"
    if not os.path.exists(busybox):
        raise HarnessError("/bin/busybox is missing (apt-get install -y busybox-static)")
    modules_dir = os.path.join(root, "lib/modules", version)
    loaded = list(MODULES)
    vkms_module = None
    load_vkms = ""
    if with_vkms:
        path = fetch_vkms(version, log_dir)
        with open(path, "rb") as file:
            vkms_module = file.read()
        depends = run_checked([find_tool("modinfo"), "-F", "depends", path]).strip()
        loaded += [name for name in depends.split(",") if name]
        load_vkms = f'insmod /lib/modules/{version}/extra/vkms.ko || echo "HIL-FAIL insmod vkms"\n'
    modules = module_closure(modules_dir, loaded)
    init = INIT_PRELUDE.replace("{modules}", " ".join(loaded)) + load_vkms + (SYSTEMD_INIT if boots_systemd else CHROOT_INIT)
    digest = hashlib.sha256((init + "\n".join(modules)).encode())
    if vkms_module:
        digest.update(vkms_module)
    with open(busybox, "rb") as file:
        digest.update(file.read())
    path = os.path.join(CACHE, f"initramfs-{version}-{digest.hexdigest()[:12]}.cpio.gz")
    kernel = os.path.join(root, "boot", f"vmlinuz-{version}")
    if os.path.exists(path):
        return kernel, path
    archive = CpioWriter()
    for directory in ["bin", "dev", "proc", "sys", "mnt", "lib", "lib/modules"]:
        archive.directory(directory)
    archive.file("init", init.encode(), mode=0o755)
    with open(busybox, "rb") as file:
        archive.file("bin/busybox", file.read(), mode=0o755)
    module_root = f"lib/modules/{version}"
    for name in sorted(os.listdir(modules_dir)):
        if name.startswith("modules.") and os.path.isfile(os.path.join(modules_dir, name)):
            with open(os.path.join(modules_dir, name), "rb") as file:
                archive.file(f"{module_root}/{name}", file.read())
    for module in modules:
        with open(os.path.join(modules_dir, module), "rb") as file:
            archive.file(f"{module_root}/{module}", file.read())
    if vkms_module:
        archive.file(f"{module_root}/extra/vkms.ko", vkms_module)
    staging = f"{path}.partial-{os.getpid()}"
    with open(staging, "wb") as file:
        file.write(gzip.compress(archive.finish(), compresslevel=6, mtime=0))
    os.rename(staging, path)
    return kernel, path


class CpioWriter:
    """The kernel's initramfs format: cpio "newc" (SVR4 without checksums)."""

    def __init__(self):
        self.data = bytearray()
        self.inode = 1
        self.directories = set()

    def _entry(self, name, mode, content=b""):
        header = "070701" + "".join(f"{value:08x}" for value in [
            self.inode, mode, 0, 0, 1, 0, len(content), 0, 0, 0, 0, len(name) + 1, 0])
        self.inode += 1
        self.data += header.encode() + name.encode() + b"\0"
        self.data += b"\0" * (-len(self.data) % 4)
        self.data += content
        self.data += b"\0" * (-len(self.data) % 4)

    def directory(self, name):
        if name and name not in self.directories:
            self.directory(os.path.dirname(name))
            self.directories.add(name)
            self._entry(name, stat.S_IFDIR | 0o755)

    def file(self, name, content, mode=0o644):
        self.directory(os.path.dirname(name))
        self._entry(name, stat.S_IFREG | mode, content)

    def finish(self):
        self._entry("TRAILER!!!", 0)
        return bytes(self.data)


# MARK: - QMP


class QMP:
    """A QMP client on QEMU's unix socket; events are skipped, errors raise."""

    def __init__(self, path, deadline):
        while True:
            try:
                self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.socket.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self.socket.close()
                if time.monotonic() > deadline:
                    raise HarnessError(f"QEMU's QMP socket {path} did not open")
                time.sleep(0.1)
        self.socket.settimeout(60)
        self.buffer = b""
        self._read_message()  # the greeting
        self.execute("qmp_capabilities")

    def _read_message(self):
        while b"\n" not in self.buffer:
            chunk = self.socket.recv(65536)
            if not chunk:
                raise HarnessError("QEMU closed its QMP socket")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def execute(self, command, **arguments):
        message = {"execute": command}
        if arguments:
            message["arguments"] = arguments
        self.socket.sendall(json.dumps(message).encode() + b"\n")
        while True:
            reply = self._read_message()
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise HarnessError(f"QMP {command}: {reply['error'].get('desc', reply['error'])}")

    def send_events(self, events):
        self.execute("input-send-event", events=events)

    def close(self):
        self.socket.close()


def ppm_to_png(ppm_path, png_path):
    """Converts QEMU's binary PPM (P6, maxval 255) to an RGB PNG; returns (width, height)."""
    with open(ppm_path, "rb") as file:
        data = file.read()
    fields = []
    position = 0
    while len(fields) < 4:
        while data[position:position + 1].isspace():
            position += 1
        if data[position:position + 1] == b"#":
            position = data.index(b"\n", position) + 1
            continue
        end = position
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[position:end])
        position = end
    position += 1  # the single whitespace byte before the raster
    magic, width, height, maxval = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    if magic != b"P6" or maxval != 255:
        raise HarnessError(f"{ppm_path} is not an 8-bit binary PPM")
    row = width * 3
    raster = data[position:position + row * height]
    if len(raster) != row * height:
        raise HarnessError(f"{ppm_path} is truncated")
    filtered = b"".join(b"\0" + raster[y * row:(y + 1) * row] for y in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(filtered, 6)) + chunk(b"IEND", b"")
    with open(png_path, "wb") as file:
        file.write(png)
    return width, height


# MARK: - The guest


SCRIPT_PRELUDE = r"""# Requests to the host through the serial console; each waits for the host's answer file.
hil_request() {
    hil_request_number=$((${hil_request_number:-0} + 1))
    echo "HIL-REQUEST $hil_request_number $*" > /dev/ttyS0
    hil_waited=0
    while [ ! -e "${HIL_OUT:-/tmp/hil-out}/.hil-ack-$hil_request_number" ]; do
        sleep 0.2
        hil_waited=$((hil_waited + 1))
        if [ "$hil_waited" -gt 1500 ]; then echo "hil: no answer to request $*" >&2; return 1; fi
    done
    read -r hil_answer < "${HIL_OUT:-/tmp/hil-out}/.hil-ack-$hil_request_number"
    [ "$hil_answer" = ok ] || { echo "hil: request $* failed: $hil_answer" >&2; return 1; }
}
hil_screendump() { hil_request screendump "$@"; }
hil_key() { hil_request key "$@"; }
hil_move() { hil_request move "$1" "$2"; }
hil_click() { hil_request click "${1:-left}"; }
hil_head() { hil_request head "$1" "$2"; }
"""


class Guest:
    def __init__(self, out, memory_mb, display_size, shares=(), setup=None, heads=1, with_vkms=False):
        self.out = os.path.abspath(out)
        self.with_vkms = with_vkms
        self.heads = heads
        self.bus_folder = None
        self.bus = None
        self.setup = setup
        self.shares = [os.path.abspath(folder) for folder in shares]
        self.memory_mb = memory_mb
        self.display_size = display_size
        self.serial_path = os.path.join(self.out, "serial.log")
        self.qmp_path = os.path.join(self.out, ".qmp.sock")
        self.process = None
        self.qmp = None

    def boot(self, script, deadline):
        kernel, initramfs = build_initramfs(boots_systemd=self.setup is not None, with_vkms=self.with_vkms, log_dir=self.out)
        os.makedirs(self.out, exist_ok=True)
        for name in os.listdir(self.out):
            if name.startswith(".hil-ack-") or name in ("serial.log", ".qmp.sock"):
                os.remove(os.path.join(self.out, name))
        with open(os.path.join(self.out, ".hil-script.sh"), "w") as file:
            file.write(SCRIPT_PRELUDE + script)
        kernel_arguments = ["console=ttyS0 loglevel=4 panic=-1 rdinit=/init no_timer_check"]
        if self.setup is not None:
            with open(os.path.join(self.out, ".hil-setup.sh"), "w") as file:
                file.write(SYSTEMD_SETUP_PRELUDE + self.setup)
            # Timers and path units would start the host's maintenance jobs (apt, man-db) at boot.
            kernel_arguments += ["systemd.unit=hil.target", "systemd.show_status=0",
                                 "systemd.mask=timers.target", "systemd.mask=paths.target"]
        kernel_arguments += [f"hil.share={f}" for f in self.shares]
        qemu = find_tool("qemu-system-x86_64")
        display = "none"
        gpu = "virtio-gpu-pci" + (f",xres={self.display_size[0]},yres={self.display_size[1]}" if self.display_size else "")
        if self.heads > 1:
            # virtio-gpu enables heads other than 0 only when the UI asks (a window opened for
            # them): QEMU's D-Bus display, on a bus of the harness's own, lets SetUIInfo plug and
            # unplug them, which the guest sees as hotplug (see head()).
            display = f"dbus,addr={self.start_bus()},gl=off"
            gpu += f",id={GPU_ID},max_outputs={self.heads}"
        arguments = [
            qemu, "-nodefaults", "-no-reboot", "-display", display, "-monitor", "none",
            # Nested KVM does not work on these machines; TCG does. The plain qemu64 CPU (no AVX)
            # makes lavapipe's JIT-compiled code faster under TCG than -cpu max (first frame 15 s
            # instead of 25 s); VITRINE_HIL_CPU overrides it.
            "-accel", "tcg,thread=multi", "-cpu", os.environ.get("VITRINE_HIL_CPU", "qemu64"), "-smp", "2", "-m", str(self.memory_mb),
            "-kernel", kernel, "-initrd", initramfs,
            # no_timer_check: under emulation on a loaded host the kernel's IO-APIC timer check
            # can miss its ticks and panic at boot ("IO-APIC + timer doesn't work").
            "-append", " ".join(kernel_arguments),
            "-serial", f"file:{self.serial_path}",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
            # Without -vga none the screendump shows the VGA text console, not the scanout.
            "-vga", "none",
            "-device", gpu,
            "-device", "virtio-keyboard-pci", "-device", "virtio-tablet-pci",
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
            "-virtfs", f"local,path={self.out},mount_tag=hilout,security_model=none,multidevs=remap",
        ]
        for index, folder in enumerate(self.shares):
            arguments += ["-virtfs", f"local,path={folder},mount_tag=share{index},security_model=none,readonly=on,multidevs=remap"]
        with open(os.path.join(self.out, "qemu.log"), "w") as qemu_log:
            qemu_log.write(" ".join(arguments) + "\n")
            qemu_log.flush()
            self.process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=qemu_log, stderr=qemu_log)
        self.qmp = QMP(self.qmp_path, deadline)

    def start_bus(self):
        """Starts a private dbus-daemon for QEMU's D-Bus display; returns its address."""
        # A unix socket path must fit in 108 bytes, which an output folder may not.
        self.bus_folder = tempfile.mkdtemp(prefix="vitrine-hil-bus-")
        address = f"unix:path={self.bus_folder}/bus"
        self.bus = subprocess.Popen(
            [find_tool("dbus-daemon"), "--session", "--nofork", f"--address={address}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not os.path.exists(f"{self.bus_folder}/bus"):
            if time.monotonic() > deadline or self.bus.poll() is not None:
                raise HarnessError("the private dbus-daemon for QEMU's D-Bus display did not start")
            time.sleep(0.05)
        return address

    def head(self, index, size):
        """Plugs head `index` with a display of `size` (width, height), or unplugs it (None): QEMU's
        org.qemu.Display1.Console.SetUIInfo, which makes virtio-gpu report a display change."""
        if self.bus is None or not 0 <= index < self.heads:
            raise HarnessError(f"no head {index}: the guest has {self.heads} (see --heads)")
        width, height = size or (0, 0)
        run_checked([
            find_tool("gdbus"), "call", "--address", f"unix:path={self.bus_folder}/bus", "--dest", "org.qemu",
            "--object-path", f"/org/qemu/Display1/Console_{index}", "--method", "org.qemu.Display1.Console.SetUIInfo",
            "0", "0", "0", "0", str(width), str(height)], timeout=30)

    def screendump(self, name, head=None):
        ppm = os.path.join(self.out, f".{name}.ppm")
        if head is None:
            self.qmp.execute("screendump", filename=ppm)
        else:
            self.qmp.execute("screendump", filename=ppm, device=GPU_ID, head=head)
        size = ppm_to_png(ppm, os.path.join(self.out, f"{name}.png"))
        os.remove(ppm)
        return size

    def key(self, keys):
        for down in (True, False):
            sequence = keys if down else list(reversed(keys))
            self.qmp.send_events([
                {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": key}}} for key in sequence])
            time.sleep(0.05)

    def move(self, x, y, width, height):
        self.qmp.send_events([
            {"type": "abs", "data": {"axis": "x", "value": round(x * ABSOLUTE_AXIS_MAX / max(1, width - 1))}},
            {"type": "abs", "data": {"axis": "y", "value": round(y * ABSOLUTE_AXIS_MAX / max(1, height - 1))}},
        ])

    def click(self, button):
        for down in (True, False):
            self.qmp.send_events([{"type": "btn", "data": {"down": down, "button": button}}])
            time.sleep(0.05)

    def stop(self):
        if self.qmp:
            try:
                self.qmp.close()
            except OSError:
                pass
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for path in (self.qmp_path,):
            if os.path.exists(path):
                os.remove(path)
        if self.bus and self.bus.poll() is None:
            # Killed, not terminated: started under the Swift test runner it outlived SIGTERM
            # (children may inherit a blocked SIGTERM there), and the run waited for it.
            self.bus.kill()
            self.bus.wait()
        if self.bus_folder:
            shutil.rmtree(self.bus_folder, ignore_errors=True)


def run(out, script, timeout, memory_mb, display_size, shares=(), setup=None, heads=1, with_vkms=False):
    """Boots the guest, serves its requests and returns (exit status, result dictionary)."""
    start = time.monotonic()
    deadline = start + timeout
    guest = Guest(out, memory_mb, display_size, shares, setup, heads, with_vkms)
    result = {"exit_status": None, "captures": {}, "requests": [], "error": None}
    timings = {}
    status = EXIT_HARNESS_FAILURE
    try:
        guest.boot(script, deadline)
        timings["qemu_started"] = time.monotonic() - start
        position = 0
        pending = ""
        output_lines = []
        in_script = False
        last_capture_size = display_size or (1280, 800)
        while True:
            if time.monotonic() > deadline:
                status = EXIT_TIMEOUT
                raise HarnessError(f"the guest did not finish within {timeout} s (see {guest.serial_path})")
            if guest.process.poll() is not None and not os.path.exists(guest.serial_path):
                raise HarnessError(f"QEMU exited ({guest.process.returncode}) before writing a console log")
            chunk = b""
            if os.path.exists(guest.serial_path):
                with open(guest.serial_path, "rb") as file:
                    file.seek(position)
                    chunk = file.read()
                position += len(chunk)
            pending += chunk.decode("utf-8", "replace").replace("\r", "")
            *lines, pending = pending.split("\n")
            finished = False
            for line in lines:
                if line.startswith("HIL-FAIL "):
                    raise HarnessError(f"the guest's init failed: {line[9:]}")
                if line == "HIL-SYSTEMD":
                    timings["systemd_started"] = time.monotonic() - start
                elif line == "HIL-BEGIN":
                    timings["script_started"] = time.monotonic() - start
                    in_script = True
                elif line.startswith("HIL-END "):
                    result["exit_status"] = status = int(line.split()[1])
                    timings["script_finished"] = time.monotonic() - start
                    finished = True
                    break
                elif line.startswith("HIL-REQUEST "):
                    number, verb, *arguments = line.split()[1:]
                    answer = "ok"
                    try:
                        if verb == "screendump":
                            head = int(arguments[1]) if len(arguments) > 1 else None
                            size = guest.screendump(arguments[0], head)
                            if head in (None, 0):
                                last_capture_size = size
                            result["captures"][arguments[0]] = {
                                "path": os.path.join(guest.out, arguments[0] + ".png"),
                                "width": size[0], "height": size[1],
                                "seconds": round(time.monotonic() - start, 3)}
                        elif verb == "key":
                            guest.key(arguments)
                        elif verb == "move":
                            guest.move(float(arguments[0]), float(arguments[1]), *last_capture_size)
                        elif verb == "click":
                            guest.click(arguments[0] if arguments else "left")
                        elif verb == "head":
                            match = re.fullmatch(r"(\d+)x(\d+)", arguments[1])
                            if arguments[1] != "off" and not match:
                                raise ValueError(f"a head is plugged with WIDTHxHEIGHT or unplugged with off, not {arguments[1]}")
                            guest.head(int(arguments[0]), (int(match.group(1)), int(match.group(2))) if match else None)
                        else:
                            answer = f"unknown request {verb}"
                    except (HarnessError, OSError, ValueError, IndexError) as error:
                        answer = f"error: {error}"
                    result["requests"].append({"request": " ".join([verb] + arguments), "answer": answer})
                    with open(os.path.join(guest.out, f".hil-ack-{number}"), "w") as file:
                        file.write(answer + "\n")
                elif in_script:
                    output_lines.append(line)
            if finished:
                break
            if guest.process.poll() is not None:
                raise HarnessError(f"QEMU exited ({guest.process.returncode}) before the script finished (see {guest.serial_path})")
            time.sleep(0.1)
        with open(os.path.join(guest.out, "output.txt"), "w") as file:
            file.write("\n".join(output_lines) + ("\n" if output_lines else ""))
        result["output"] = "\n".join(output_lines)
        # The guest powers itself off after HIL-END.
        try:
            guest.process.wait(timeout=max(5, min(60, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            log("the guest did not power off; stopping QEMU")
    except HarnessError as error:
        result["error"] = str(error)
        log(str(error))
        tail = ""
        if os.path.exists(guest.serial_path):
            with open(guest.serial_path, "rb") as file:
                tail = file.read()[-3000:].decode("utf-8", "replace")
        log(f"last console output:\n{tail}")
    finally:
        guest.stop()
        timings["total"] = time.monotonic() - start
        result["seconds"] = {key: round(value, 3) for key, value in timings.items()}
        os.makedirs(guest.out, exist_ok=True)
        with open(os.path.join(guest.out, "result.json"), "w") as file:
            json.dump(result, file, indent=2)
    return status, result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    preparer = commands.add_parser("prepare", help="fetch the kernel and build the initramfs (cached)")
    preparer.add_argument("--vkms", action="store_true", help="with vkms, built for the guest's kernel (cached)")
    runner = commands.add_parser("run", help="boot the guest and run a script in it")
    runner.add_argument("--out", required=True, help="output folder (console log, captures, result.json)")
    runner.add_argument("--timeout", type=float, default=600, help="seconds for the whole run, boot included")
    runner.add_argument("--memory", type=int, default=2048, help="guest memory in MiB")
    runner.add_argument("--display", help="virtio-gpu's preferred mode, WIDTHxHEIGHT")
    runner.add_argument(
        "--heads", type=int, default=1,
        help="virtio-gpu's outputs (max_outputs); above 1 the script may plug and unplug heads with hil_head")
    runner.add_argument(
        "--share", action="append", default=[],
        help="a host folder the guest must see at its own path even where its mounts hide the host's "
        "(/tmp, /run): a build folder in a clone under /tmp, say; may be repeated")
    runner.add_argument(
        "--systemd", metavar="SETUP",
        help="boot a whole system with systemd as PID 1, after running the shell script SETUP in a chroot of it")
    runner.add_argument(
        "--vkms", action="store_true",
        help="also load vkms (built out of tree for the guest's kernel, cached): a second card whose "
        "CRTC counts vblanks, which QMP cannot capture")
    runner.add_argument("script", help="a shell script file, or - for standard input")
    arguments = parser.parse_args()
    try:
        if arguments.command == "prepare":
            kernel, initramfs = build_initramfs(with_vkms=arguments.vkms)
            print(json.dumps({"kernel": kernel, "initramfs": initramfs}))
            return 0
        display_size = None
        if arguments.display:
            match = re.fullmatch(r"(\d+)x(\d+)", arguments.display)
            if not match:
                raise HarnessError(f"--display must look like 1024x768, got {arguments.display}")
            display_size = (int(match.group(1)), int(match.group(2)))
        for folder in arguments.share:
            if not os.path.isdir(folder) or any(c.isspace() for c in folder):
                raise HarnessError(f"--share needs an existing folder without spaces, got {folder!r}")
        script = sys.stdin.read() if arguments.script == "-" else open(arguments.script).read()
        setup = open(arguments.systemd).read() if arguments.systemd else None
    except (HarnessError, OSError, subprocess.TimeoutExpired) as error:
        log(str(error))
        return EXIT_HARNESS_FAILURE
    if not 1 <= arguments.heads <= 16:
        log(f"--heads must be 1…16, got {arguments.heads}")
        return EXIT_HARNESS_FAILURE
    status, result = run(
        arguments.out, script, arguments.timeout, arguments.memory, display_size, arguments.share, setup, arguments.heads, arguments.vkms)
    print(json.dumps(result, indent=2))
    return status


if __name__ == "__main__":
    sys.exit(main())
