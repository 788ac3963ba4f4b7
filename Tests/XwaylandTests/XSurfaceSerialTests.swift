import Compositor
import Glibc
import Graphics
import Testing
import WaylandServer
import WaylandTestClient
import XWindowManager

/// The association Xwayland 23.1 and later make (Debian 12's 22.1 sends `WL_SURFACE_ID`): a serial
/// committed on a surface through xwayland_shell_v1 and sent for the window in a
/// `WL_SURFACE_SERIAL` message. A test client plays Xwayland's Wayland connection (it is made the
/// compositor's `xwaylandClient`, as `XwaylandServer` makes Xwayland's), and a raw X client on the
/// running Xwayland sends the messages Xwayland would; the window manager must then show each X
/// window with the surface of its serial, whichever of the two comes first. Xwayland's own
/// `WL_SURFACE_ID` for these windows is ignored, as the connection bound xwayland_shell_v1.
@Suite(.serialized) struct XSurfaceSerialTests {
    @Test func xWindowsAreShownWithTheSurfacesTheirSerialsWereCommittedOn() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        // Xwayland runs, with its window manager.
        _ = try session.output(of: ["xdpyinfo"])
        let (server, socket) = try session.compositor.display.createClientSocket()
        session.compositor.xwaylandClient = server
        let wayland = try TestClient(socket: socket) { try? session.compositor.dispatch(timeoutMilliseconds: 0) }
        let shell = try wayland.bind(XwaylandShellV1Proxy.self, version: 1)
        let compositor = try wayland.bind(WlCompositorProxy.self, version: 5)
        let shm = try wayland.bind(WlShmProxy.self, version: 1)
        /// A 640×480 surface of one colour whose serial is set and committed.
        func surface(filledWith pixel: UInt32, serial: (low: UInt32, high: UInt32)) throws -> Surface {
            let proxy = try compositor.createSurface()
            try shell.getXwaylandSurface(surface: proxy).setSerial(serialLo: serial.low, serialHi: serial.high)
            try proxy.attach(buffer: try filledBuffer(shm, width: 640, height: 480, pixel: pixel), x: 0, y: 0)
            try proxy.damage(x: 0, y: 0, width: 640, height: 480)
            try proxy.commit()
            try wayland.roundtrip()
            return try #require(server.resource(withID: proxy.id) as? Surface)
        }
        let x = try RawXClient(display: session.xwayland.displayName)
        let serialMessage = x.atom("WL_SURFACE_SERIAL")
        func window(_ id: UInt32) -> XWindow? { session.xwayland.windowManager?.windows.first { $0.id == id } }

        // The serial committed before the window manager hears it.
        let green = try surface(filledWith: 0xff20_c040, serial: (0x11, 0x2))
        #expect(green.xwaylandSerial == 0x2_0000_0011)
        let first = x.createWindow(width: 100, height: 80)
        x.map(first)
        x.sendToWindowManager(type: serialMessage, about: first, words: [0x11, 0x2])
        #expect(try session.run(seconds: 10) { session.shownWindows.contains { $0.id == first } })
        #expect(window(first)?.surface === green)
        // Its window, the xwayland shell and the surface's role object hold the shown surface, which
        // frames retain, without weak references (each would give it a side table, slowing every
        // retain and release of it): a count of 1 is the object's own.
        #expect(_getWeakRetainCount(green) == 1)
        #expect(window(first)?.frame == IntRect(x: 0, y: 0, width: 640, height: 480))
        // A frame is drawn within a refresh or two; a loaded machine (CI runs suites side by side)
        // can take longer, so the wait ends when it shows, and the colour is checked exactly.
        let greenPixel = PremultipliedPixel(red: 0x20, green: 0xc0, blue: 0x40, alpha: 255)
        _ = try session.run(seconds: 10) { session.compositor.capture()?.pixel(x: 320, y: 240) == greenPixel }
        #expect(session.compositor.capture()?.pixel(x: 320, y: 240) == greenPixel)

        // The message before the commit: the window waits for its surface.
        let second = x.createWindow(width: 100, height: 80)
        x.map(second)
        x.sendToWindowManager(type: serialMessage, about: second, words: [0x12, 0x2])
        try session.run(seconds: 0.5)
        #expect(window(second)?.isMapped == true)
        #expect(window(second)?.surface == nil)
        let blue = try surface(filledWith: 0xff20_4080, serial: (0x12, 0x2))
        #expect(try session.run(seconds: 10) { session.shownWindows.contains { $0.id == second } })
        #expect(window(second)?.surface === blue)
        let bluePixel = PremultipliedPixel(red: 0x20, green: 0x40, blue: 0x80, alpha: 255)
        _ = try session.run(seconds: 10) { session.compositor.capture()?.pixel(x: 320, y: 240) == bluePixel }
        #expect(session.compositor.capture()?.pixel(x: 320, y: 240) == bluePixel)

        // A serial already shown by another window, or none, pairs nothing.
        let third = x.createWindow(width: 100, height: 80)
        x.map(third)
        x.sendToWindowManager(type: serialMessage, about: third, words: [0x11, 0x2])
        x.sendToWindowManager(type: serialMessage, about: third, words: [0, 0])
        try session.run(seconds: 0.5)
        #expect(window(third)?.isMapped == true)
        #expect(window(third)?.surface == nil)
        #expect(window(first)?.surface === green)
    }

    /// A wl_shm buffer of `width`×`height` ARGB8888 pixels, every pixel `pixel`.
    private func filledBuffer(_ shm: WlShmProxy, width: Int32, height: Int32, pixel: UInt32) throws -> WlBufferProxy {
        let size = Int(width * height * 4)
        let fd = anonymousFile(size: size)
        defer { close(fd) }
        let memory = try #require(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0))
        memory.initializeMemory(as: UInt32.self, repeating: pixel, count: size / 4)
        munmap(memory, size)
        let pool = try shm.createPool(fd: FileDescriptor(rawValue: fd), size: Int32(size))
        defer { try? pool.destroy() }
        return try pool.createBuffer(offset: 0, width: width, height: height, stride: width * 4, format: .argb8888)
    }
}
