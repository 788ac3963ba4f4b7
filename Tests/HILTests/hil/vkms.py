"""vkms for the guest's kernel, built out of tree (Debian's kernel leaves CONFIG_DRM_VKMS unset).

vkms is the one KMS driver the rig can load whose CRTC counts vblanks (an hrtimer at the mode's
refresh), so that flip sequences and drmCrtcGetSequence are real. The module is built against the
headers of exactly the guest's kernel (vermagic and symbol versions must match), from the vkms
sources of the same kernel release, with the gcc those headers name; guest.py puts it in the
initramfs with its dependencies. Everything lands in the rig's cache, the module keyed by kernel.
"""

import os
import re
import shutil
import subprocess


class BuildError(Exception):
    pass


def _run(arguments, **kwargs):
    result = subprocess.run(arguments, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise BuildError(f"{' '.join(arguments)} failed ({result.returncode}): {result.stderr.strip()}")
    return result.stdout


def _download(packages, cache, log):
    """The .deb of each (package, version) in cache, downloaded once; returns their paths."""
    paths = []
    for package, version in packages:
        # A .deb's file name carries its version with an epoch's colon escaped.
        name = f"{package}_{version.replace(':', '%3a')}_"
        found = [f for f in os.listdir(cache) if f.startswith(name) and f.endswith(".deb")]
        if not found:
            log(f"downloading {package}={version} into {cache}")
            _run(["apt-get", "download", f"{package}={version}"], cwd=cache, timeout=900)
            found = [f for f in os.listdir(cache) if f.startswith(name) and f.endswith(".deb")]
            if not found:
                raise BuildError(f"apt-get download {package}={version} left no .deb in {cache}")
        paths.append(os.path.join(cache, found[0]))
    return paths


def _upstream(version):
    """6.1.192 from Debian's 6.1.192-2 (or 1:6.1.192-2)."""
    return version.split(":")[-1].rsplit("-", 1)[0]


def build(cache, kernel_version, image_deb, log, log_copy_dir=None):
    """Returns the path of vkms.ko built for `kernel_version` (e.g. 6.1.0-56-amd64), whose image
    package is `image_deb`; builds it once per kernel version."""
    folder = os.path.join(cache, f"vkms-{kernel_version}")
    module = os.path.join(folder, "vkms.ko")
    if os.path.exists(module):
        return module
    image_version = _run(["dpkg-deb", "-f", image_deb, "Version"]).strip()
    series = re.match(r"(\d+\.\d+)\.", kernel_version + ".")
    if not series:
        raise BuildError(f"cannot tell the kernel series of {kernel_version}")
    series = series.group(1)
    headers, common, kbuild, source = _download([
        (f"linux-headers-{kernel_version}", image_version),
        (f"linux-headers-{kernel_version.rsplit('-', 1)[0]}-common", image_version),
        (f"linux-kbuild-{series}", image_version),
        (f"linux-source-{series}", image_version)], cache, log)
    staging = f"{folder}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    build_log = os.path.join(staging, "build.log")
    try:
        root = os.path.join(staging, "root")
        for deb in (headers, common, kbuild):
            _run(["dpkg-deb", "-x", deb, root], timeout=600)
        tree = os.path.join(root, "usr/src", f"linux-headers-{kernel_version}")
        # The headers' Makefile includes the common headers at their installed path, /usr/src/…;
        # here they are unpacked, not installed.
        makefile = os.path.join(tree, "Makefile")
        with open(makefile) as file:
            text = file.read()
        with open(makefile, "w") as file:
            file.write(text.replace("include /usr/src/", f"include {root}/usr/src/"))
        # Only the vkms sources (and the top Makefile, for the release) from the 140 MB tarball.
        tarball = f"./usr/src/linux-source-{series}.tar.xz"
        prefix = f"linux-source-{series}"
        unpack = subprocess.run(
            ["sh", "-c", f'dpkg-deb --fsys-tarfile "$0" | tar -xO "$1" | tar -xJ -C "$2" "$3/drivers/gpu/drm/vkms" "$3/Makefile"',
             source, tarball, staging, prefix], capture_output=True, text=True, timeout=600)
        if unpack.returncode != 0:
            raise BuildError(f"unpacking vkms from {source} failed: {unpack.stderr.strip()}")
        with open(os.path.join(staging, prefix, "Makefile")) as file:
            fields = dict(re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL) = (\d+)$", file.read(), re.MULTILINE))
        source_release = ".".join(fields.get(key, "?") for key in ("VERSION", "PATCHLEVEL", "SUBLEVEL"))
        if source_release != _upstream(image_version):
            raise BuildError(
                f"{os.path.basename(source)} holds Linux {source_release}, but the guest's kernel "
                f"{kernel_version} is {_upstream(image_version)} ({image_version}): vkms would not match it")
        # The compiler the kernel was built with, as the headers name it (CC = … gcc-12).
        with open(os.path.join(tree, ".kernelvariables")) as file:
            compiler = re.search(r"^CC = .*?\)\s*(gcc-[\d.]+)\s*$", file.read(), re.MULTILINE)
        compiler = compiler.group(1) if compiler else "gcc"
        if not shutil.which(compiler) or not shutil.which("make"):
            raise BuildError(f"{compiler} or make is missing, which build vkms for {kernel_version} (apt-get install -y {compiler} make)")
        sources = os.path.join(staging, prefix, "drivers/gpu/drm/vkms")
        with open(build_log, "w") as output:
            status = subprocess.run(
                ["make", "-C", tree, f"M={sources}", "CONFIG_DRM_VKMS=m", "-j2"],
                stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, timeout=600).returncode
        if status != 0 or not os.path.exists(os.path.join(sources, "vkms.ko")):
            with open(build_log) as file:
                tail = "".join(file.readlines()[-20:])
            raise BuildError(f"building vkms for {kernel_version} failed ({status}):\n{tail}")
        shutil.copy(os.path.join(sources, "vkms.ko"), os.path.join(staging, "vkms.ko"))
        shutil.rmtree(root)
        shutil.rmtree(os.path.join(staging, prefix))
    except (BuildError, OSError, subprocess.TimeoutExpired) as error:
        if log_copy_dir and os.path.exists(build_log):
            os.makedirs(log_copy_dir, exist_ok=True)
            shutil.copy(build_log, os.path.join(log_copy_dir, "vkms-build.log"))
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(error, BuildError):
            raise
        raise BuildError(f"building vkms for {kernel_version}: {error}") from error
    try:
        os.rename(staging, folder)
    except OSError:
        # Another run finished first: keep its copy.
        shutil.rmtree(staging, ignore_errors=True)
    return module
