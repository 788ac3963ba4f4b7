internal import CUdev
import Glibc
import SystemCalls

/// The DRM device's hotplug uevents (HOTPLUG=1: a connector's state changed), through libudev's
/// netlink monitor. Where udevd runs, its processed events ("udev"); where it does not (a bare
/// initramfs, the test rig's guest), the kernel's own ("kernel"), which carry the same properties.
final class HotplugMonitor {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer
    /// The device number of the DRM node watched.
    private let deviceNumber: dev_t
    /// The monitor's socket (libudev's to close).
    let fileDescriptor: FileDescriptor
    /// Which netlink source is read: "udev" or "kernel".
    let source: String

    init(devicePath: String) throws(KMSError) {
        var status = stat()
        guard stat(devicePath, &status) == 0 else { throw KMSError.system(.current("stat", path: devicePath)) }
        deviceNumber = status.st_rdev
        guard let udev = udev_new() else { throw KMSError.current("udev_new") }
        source = access("/run/udev/control", F_OK) == 0 ? "udev" : "kernel"
        guard let monitor = udev_monitor_new_from_netlink(udev, source) else {
            udev_unref(udev)
            throw KMSError.current("udev_monitor_new_from_netlink(\(source))")
        }
        self.udev = udev
        self.monitor = monitor
        do throws(KMSError) {
            try KMSError.check(udev_monitor_filter_add_match_subsystem_devtype(monitor, "drm", "drm_minor"),
                               "udev_monitor_filter_add_match_subsystem_devtype(drm)")
            try KMSError.check(udev_monitor_enable_receiving(monitor), "udev_monitor_enable_receiving")
        } catch {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw error
        }
        fileDescriptor = FileDescriptor(rawValue: udev_monitor_get_fd(monitor))
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Reads every event that is ready; returns whether one of them was a hotplug of the device.
    func readHotplugs() -> Bool {
        var hotplug = false
        while let device = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(device) }
            guard udev_device_get_devnum(device) == deviceNumber,
                  let value = udev_device_get_property_value(device, "HOTPLUG"), String(cString: value) == "1" else { continue }
            hotplug = true
        }
        return hotplug
    }
}
