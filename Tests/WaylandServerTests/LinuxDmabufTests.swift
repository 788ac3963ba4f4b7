import Buffers
import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// The compositor's side of imports in these tests: it accepts or refuses by `accepts`, and
/// records what it was asked (the real compositor hands the attributes to the renderer).
private final class RecordingImporter: DmabufImporter {
    var accepts = true
    private(set) var imported: [DmabufAttributes] = []
    private(set) var destroyed: [DmabufAttributes] = []

    func importBuffer(_ attributes: DmabufAttributes) -> Bool {
        imported.append(attributes)
        return accepts
    }

    func bufferDestroyed(_ attributes: DmabufAttributes) {
        destroyed.append(attributes)
    }
}

/// A vendor's tiled layout (fourcc_mod_code(INTEL, 1), I915_FORMAT_MOD_X_TILED).
private let xTiled: UInt64 = 0x0100_0000_0000_0001
private let renderNode = DeviceNumber(major: 226, minor: 128)
private let primaryNode = DeviceNumber(major: 226, minor: 0)

/// Rendering on the render node with two linear formats and a tiled one (one named twice, which
/// the wire must not repeat), plus a scan-out tranche.
private let defaultFeedback = DmabufFeedback(mainDevice: renderNode, tranches: [
    DmabufTranche(targetDevice: renderNode, formats: [
        DmabufFormat(.argb8888, modifier: FormatModifier.linear),
        DmabufFormat(.xrgb8888, modifier: FormatModifier.linear),
        DmabufFormat(.argb8888, modifier: xTiled),
        DmabufFormat(.xrgb8888, modifier: FormatModifier.linear),
    ]),
    DmabufTranche(
        targetDevice: primaryNode, formats: [DmabufFormat(.xrgb8888, modifier: FormatModifier.linear)], isScanout: true),
])

private final class DmabufHarness {
    let core: Harness
    let importer = RecordingImporter()
    let global: LinuxDmabufGlobal
    private var compositor: WlCompositorProxy?

    var client: TestClient { core.client }

    init(feedback: DmabufFeedback = defaultFeedback) throws {
        core = try Harness()
        global = try LinuxDmabufGlobal(display: core.display, feedback: feedback, importer: importer)
        try core.client.roundtrip()
    }

    func bind(version: UInt32 = 4) throws -> ZwpLinuxDmabufV1Proxy {
        try client.bind(ZwpLinuxDmabufV1Proxy.self, version: version)
    }

    func makeSurface() throws -> (proxy: WlSurfaceProxy, surface: Surface) {
        if compositor == nil { compositor = try client.bind(WlCompositorProxy.self, version: 5) }
        let proxy = try compositor!.createSurface()
        try client.roundtrip()
        return (proxy, try #require(core.surfaces.last))
    }

    /// A new zwp_linux_buffer_params_v1 with `plane` added as plane 0 (a 64-pixel-wide ARGB row).
    func makeParams(_ dmabuf: ZwpLinuxDmabufV1Proxy, plane fd: Int32) throws -> ZwpLinuxBufferParamsV1Proxy {
        let params = try dmabuf.createParams()
        try add(params, fd: fd, stride: 256)
        return params
    }

    /// zwp_linux_buffer_params_v1.add of `fd` as plane `index` (libwayland sends a duplicate).
    func add(_ params: ZwpLinuxBufferParamsV1Proxy, fd: Int32, index: UInt32 = 0, offset: UInt32 = 0, stride: UInt32,
             modifier: UInt64 = 0) throws {
        try params.add(fd: FileDescriptor(rawValue: fd), planeIdx: index, offset: offset, stride: stride,
                       modifierHi: UInt32(modifier >> 32), modifierLo: UInt32(truncatingIfNeeded: modifier))
    }

    func create(_ params: ZwpLinuxBufferParamsV1Proxy, width: Int32, height: Int32, format: UInt32 = PixelFormat.argb8888.rawValue,
                flags: ZwpLinuxBufferParamsV1Flags = []) throws {
        try params.create(width: width, height: height, format: format, flags: flags)
    }

    @discardableResult
    func createImmediately(_ params: ZwpLinuxBufferParamsV1Proxy, width: Int32, height: Int32,
                           format: UInt32 = PixelFormat.argb8888.rawValue, flags: ZwpLinuxBufferParamsV1Flags = []) throws -> WlBufferProxy {
        try params.createImmed(width: width, height: height, format: format, flags: flags)
    }

    /// Expects the next roundtrip to end with zwp_linux_buffer_params_v1 error `code` on `params`.
    func expectParamsError(_ params: ZwpLinuxBufferParamsV1Proxy, _ code: ZwpLinuxBufferParamsV1Error,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = ProtocolErrorReport(code, on: params)
        #expect(throws: TestClientError.protocolError(expected), sourceLocation: sourceLocation) {
            try client.roundtrip()
        }
    }
}

/// How many descriptors of this process refer to the same open file as `fd` (itself included):
/// compared by device and inode, so tests running beside this one do not disturb the count.
private func openDescriptors(sharingFileWith fd: Int32) -> Int {
    var target = stat()
    guard fstat(fd, &target) == 0, let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let other = Int32(name), other != dirfd(directory) else { continue }
        var status = stat()
        if fstat(other, &status) == 0, status.st_dev == target.st_dev, status.st_ino == target.st_ino { count += 1 }
    }
    return count
}

/// The (format, modifier) entries of a format table event's file, read through a private mapping.
private func formatTable(_ descriptor: FileDescriptor, size: UInt32) throws -> [DmabufFormat] {
    let fd = descriptor.rawValue
    let memory = try #require(mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd, 0))
    try #require(memory != MAP_FAILED)
    defer { munmap(memory, Int(size)) }
    // The table is sealed: the compositor promises it never changes, and clients cannot change it.
    #expect(write(fd, [UInt8(1)], 1) == -1 && errno == EPERM)
    #expect(ftruncate(fd, 0) == -1 && errno == EPERM)
    return (0..<Int(size) / 16).map { index in
        DmabufFormat(PixelFormat(rawValue: memory.load(fromByteOffset: index * 16, as: UInt32.self)),
                     modifier: memory.loadUnaligned(fromByteOffset: index * 16 + 8, as: UInt64.self))
    }
}

private func bytes<T>(_ values: [T]) -> [UInt8] {
    values.flatMap { value in withUnsafeBytes(of: value) { Array($0) } }
}

/// The events of one full feedback send, decoded: table, main device, tranches.
private struct ReceivedFeedback: Equatable {
    var table: [DmabufFormat] = []
    var mainDevice: [UInt8] = []
    var tranches: [(device: [UInt8], flags: ZwpLinuxDmabufFeedbackV1TrancheFlags, indices: [UInt8])] = []

    static func == (lhs: ReceivedFeedback, rhs: ReceivedFeedback) -> Bool {
        lhs.table == rhs.table && lhs.mainDevice == rhs.mainDevice
            && lhs.tranches.map(\.device) == rhs.tranches.map(\.device)
            && lhs.tranches.map(\.flags) == rhs.tranches.map(\.flags)
            && lhs.tranches.map(\.indices) == rhs.tranches.map(\.indices)
    }

    init(_ events: [ZwpLinuxDmabufFeedbackV1Proxy.Event]) throws {
        for event in events {
            switch event {
            case .formatTable(let fd, let size): table = try formatTable(fd, size: size)
            case .mainDevice(let value): mainDevice = value
            case .trancheTargetDevice(let value): tranches.append((value, [], []))
            case .trancheFlags(let value): tranches[tranches.count - 1].flags = value
            case .trancheFormats(let value): tranches[tranches.count - 1].indices = value
            case .trancheDone, .done: break
            }
        }
    }
}

private let oneFeedbackSend = [
    "format_table", "main_device",
    "tranche_target_device", "tranche_flags", "tranche_formats", "tranche_done",
    "tranche_target_device", "tranche_flags", "tranche_formats", "tranche_done",
    "done",
]

/// zwp_linux_dmabuf_v1 and its feedback (`Feedback`) and buffer params (`BufferParams`).
@Suite struct LinuxDmabufTests {}

extension LinuxDmabufTests {
    @Suite struct Feedback {
        @Test func defaultFeedbackSendsTheTableTheDevicesAndTheTranchesInOrder() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            let feedback = try dmabuf.getDefaultFeedback()
            try harness.client.roundtrip()
            #expect(dmabuf.events.isEmpty, "version 4 must not send format or modifier events")
            #expect(feedback.events.map(\.name) == oneFeedbackSend)
            let received = try ReceivedFeedback(feedback.events)
            #expect(received.table == [
                DmabufFormat(.argb8888, modifier: 0), DmabufFormat(.xrgb8888, modifier: 0),
                DmabufFormat(.argb8888, modifier: xTiled),
            ])
            // dev_t 226:128 is (226 << 8) | 128 in glibc's encoding.
            #expect(received.mainDevice == bytes([UInt64(0xe280)]))
            #expect(received.tranches.map(\.device) == [bytes([UInt64(0xe280)]), bytes([UInt64(0xe200)])])
            #expect(received.tranches.map(\.flags) == [[], .scanout])
            #expect(received.tranches.map(\.indices) == [bytes([UInt16(0), 1, 2]), bytes([UInt16(1)])])
        }

        @Test func feedbackWithoutATrancheForTheMainDeviceIsRefused() throws {
            let core = try Harness()
            let feedback = DmabufFeedback(mainDevice: renderNode, tranches: [
                DmabufTranche(targetDevice: primaryNode, formats: [DmabufFormat(.argb8888, modifier: 0)]),
            ])
            #expect(throws: DmabufFeedbackError.noTrancheForMainDevice(renderNode)) {
                _ = try LinuxDmabufGlobal(display: core.display, feedback: feedback, importer: RecordingImporter())
            }
            let empty = DmabufFeedback(mainDevice: renderNode, tranches: [DmabufTranche(targetDevice: renderNode, formats: [])])
            #expect(throws: DmabufFeedbackError.emptyTranche(index: 0)) {
                _ = try LinuxDmabufGlobal(display: core.display, feedback: empty, importer: RecordingImporter())
            }
        }

        @Test func version3ClientsHearEveryFormatAndEveryModifier() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind(version: 3)
            try harness.client.roundtrip()
            let (argb8888, xrgb8888) = (PixelFormat.argb8888.rawValue, PixelFormat.xrgb8888.rawValue)
            #expect(dmabuf.events == [
                .format(format: argb8888), .format(format: xrgb8888),
                .modifier(format: argb8888, modifierHi: 0, modifierLo: 0), .modifier(format: xrgb8888, modifierHi: 0, modifierLo: 0),
                .modifier(format: argb8888, modifierHi: 0x0100_0000, modifierLo: 1),
            ])
        }

        @Test func version2ClientsHearOnlyFormatsWithALinearOrImplicitLayout() throws {
            let tiledOnly = DmabufFeedback(mainDevice: renderNode, tranches: [
                DmabufTranche(targetDevice: renderNode, formats: [
                    DmabufFormat(.abgr8888, modifier: xTiled),
                    DmabufFormat(.xrgb8888, modifier: FormatModifier.invalid),
                    DmabufFormat(.argb8888, modifier: FormatModifier.linear),
                ]),
            ])
            let harness = try DmabufHarness(feedback: tiledOnly)
            let dmabuf = try harness.bind(version: 2)
            try harness.client.roundtrip()
            #expect(dmabuf.events == [.format(format: PixelFormat.xrgb8888.rawValue), .format(format: PixelFormat.argb8888.rawValue)])
        }

        @Test func surfaceFeedbackFollowsTheSurfacesOwnFeedbackAndBecomesInertWithIt() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            let (proxy, surface) = try harness.makeSurface()
            let defaultObject = try dmabuf.getDefaultFeedback()
            let surfaceObject = try dmabuf.getSurfaceFeedback(surface: proxy)
            try harness.client.roundtrip()
            #expect(try ReceivedFeedback(surfaceObject.events) == ReceivedFeedback(defaultObject.events))
            defaultObject.clearEvents()
            surfaceObject.clearEvents()

            let scanout = DmabufFeedback(mainDevice: renderNode, tranches: [
                DmabufTranche(targetDevice: primaryNode, formats: [DmabufFormat(.xrgb8888, modifier: 0)], isScanout: true),
                DmabufTranche(targetDevice: renderNode, formats: [DmabufFormat(.argb8888, modifier: 0)]),
            ])
            try harness.global.setFeedback(scanout, for: surface)
            try harness.global.setFeedback(scanout, for: surface)
            try harness.client.roundtrip()
            #expect(defaultObject.events.isEmpty)
            #expect(surfaceObject.events.map(\.name) == oneFeedbackSend, "sent once: the same feedback is never repeated")
            let received = try ReceivedFeedback(surfaceObject.events)
            #expect(received.table == [DmabufFormat(.xrgb8888, modifier: 0), DmabufFormat(.argb8888, modifier: 0)])
            #expect(received.tranches.map(\.flags) == [.scanout, []])
            #expect(received.tranches.map(\.indices) == [bytes([UInt16(0)]), bytes([UInt16(1)])])
            surfaceObject.clearEvents()

            try harness.global.setFeedback(nil, for: surface)
            try harness.client.roundtrip()
            #expect(try ReceivedFeedback(surfaceObject.events).table.count == 3, "back to the default table")
            surfaceObject.clearEvents()

            try proxy.destroy()
            try harness.client.roundtrip()
            var changed = defaultFeedback
            changed.tranches.removeLast()
            try harness.global.setDefaultFeedback(changed)
            try harness.client.roundtrip()
            #expect(surfaceObject.events.isEmpty, "the surface is gone: its feedback object is inert")
            #expect(defaultObject.events.map(\.name) == [
                "format_table", "main_device",
                "tranche_target_device", "tranche_flags", "tranche_formats", "tranche_done",
                "done",
            ])
            _ = try ReceivedFeedback(defaultObject.events)
            #expect(harness.global.defaultFeedback == changed)
        }

        /// A surface is retained every frame: its feedback object holds it strongly, not weakly (a
        /// weak reference gives it a side table, which slows every retain and release of it), and
        /// lets go of it when it is destroyed, the object then inert.
        @Test func surfaceFeedbackDoesNotWeaklyReferenceItsSurfaceAndLetsGoOfItWhenDestroyed() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            weak var released: Surface?
            let surfaceObject: ZwpLinuxDmabufFeedbackV1Proxy
            do {
                let (proxy, surface) = try harness.makeSurface()
                surfaceObject = try dmabuf.getSurfaceFeedback(surface: proxy)
                try harness.client.roundtrip()
                #expect(surfaceObject.events.last == .done)
                // A count of 1 is the object's own: no weak reference.
                #expect(_getWeakRetainCount(surface) == 1)
                released = surface
                try proxy.destroy()
                try harness.client.roundtrip()
            }
            #expect(released == nil)
            surfaceObject.clearEvents()
            try harness.global.setDefaultFeedback(DmabufFeedback(mainDevice: renderNode, tranches: [
                DmabufTranche(targetDevice: renderNode, formats: [DmabufFormat(.xrgb8888, modifier: 0)]),
            ]))
            try harness.client.roundtrip()
            #expect(surfaceObject.events.isEmpty)
        }

        @Test func surfaceFeedbackMadeAfterTheSurfaceGotItsOwnStartsWithIt() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            let (proxy, surface) = try harness.makeSurface()
            let own = DmabufFeedback(mainDevice: renderNode, tranches: [
                DmabufTranche(targetDevice: renderNode, formats: [DmabufFormat(.xrgb8888, modifier: 0)]),
            ])
            try harness.global.setFeedback(own, for: surface)
            let surfaceObject = try dmabuf.getSurfaceFeedback(surface: proxy)
            try harness.client.roundtrip()
            let received = try ReceivedFeedback(surfaceObject.events)
            #expect(received.table == [DmabufFormat(.xrgb8888, modifier: 0)])
            #expect(received.tranches.map(\.indices) == [bytes([UInt16(0)])])
        }
    }

    @Suite struct BufferParams {
        @Test func createSendsCreatedWithABufferThatCarriesTheAttributes() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            let fd = anonymousFile(size: 256 * 16)
            defer { close(fd) }
            let params = try harness.makeParams(dmabuf, plane: fd)
            try harness.create(params, width: 64, height: 16, flags: .yInvert)
            try harness.client.roundtrip()
            #expect(params.events.map(\.name) == ["created"])
            guard case .created(let buffer)? = params.events.first else {
                Issue.record("created carries no buffer")
                return
            }

            let attributes = try #require(harness.importer.imported.first)
            #expect(harness.importer.imported.count == 1)
            #expect(attributes.width == 64 && attributes.height == 16)
            #expect(attributes.format == DmabufFormat(.argb8888, modifier: FormatModifier.linear))
            #expect(attributes.flags == .yInverted)
            #expect(attributes.planes.map(\.offset) == [0] && attributes.planes.map(\.stride) == [256])
            #expect(openDescriptors(sharingFileWith: fd) == 2, "the server keeps the plane while the buffer lives")

            let (surfaceProxy, surface) = try harness.makeSurface()
            try surfaceProxy.attach(buffer: buffer, x: 0, y: 0)
            try surfaceProxy.commit()
            try harness.client.roundtrip()
            let shown = try #require(surface.current.buffer)
            #expect(shown.storage == .dmabuf(attributes))
            #expect(shown.width == 64 && shown.height == 16)
            #expect(surface.current.size == SurfaceSize(width: 64, height: 16))
            #expect(shown.withShmContents { _ in true } == nil)

            try buffer.destroy()
            try harness.client.roundtrip()
            #expect(harness.importer.destroyed == [attributes])
            #expect(!shown.isAlive)
            #expect(openDescriptors(sharingFileWith: fd) == 1, "the buffer's plane descriptor was closed")
        }

        @Test func createImmedMakesTheBufferWithoutEvents() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            let luma = anonymousFile(size: 4096), chroma = anonymousFile(size: 4096)
            defer { close(luma); close(chroma) }
            let params = try dmabuf.createParams()
            // Planes may come in any order; both carry the same (tiled) modifier.
            try harness.add(params, fd: chroma, index: 1, offset: 0, stride: 128, modifier: xTiled)
            try harness.add(params, fd: luma, index: 0, offset: 64, stride: 128, modifier: xTiled)
            let buffer = try harness.createImmediately(params, width: 32, height: 16)
            try params.destroy()
            try harness.client.roundtrip()
            #expect(params.events.isEmpty)
            let attributes = try #require(harness.importer.imported.first)
            #expect(attributes.format == DmabufFormat(.argb8888, modifier: xTiled))
            #expect(attributes.planes.map(\.offset) == [64, 0])
            #expect(openDescriptors(sharingFileWith: luma) == 2 && openDescriptors(sharingFileWith: chroma) == 2)

            let (surfaceProxy, surface) = try harness.makeSurface()
            try surfaceProxy.attach(buffer: buffer, x: 0, y: 0)
            try surfaceProxy.commit()
            try harness.client.roundtrip()
            #expect(surface.current.buffer?.storage == .dmabuf(attributes))
            try buffer.destroy()
            try harness.client.roundtrip()
            #expect(openDescriptors(sharingFileWith: luma) == 1 && openDescriptors(sharingFileWith: chroma) == 1)
        }

        @Test func aRefusedImportAfterCreateIsFailedAndClosesThePlanes() throws {
            let harness = try DmabufHarness()
            harness.importer.accepts = false
            let dmabuf = try harness.bind()
            let fd = anonymousFile(size: 4096)
            defer { close(fd) }
            let params = try harness.makeParams(dmabuf, plane: fd)
            try harness.create(params, width: 64, height: 16)
            try harness.client.roundtrip()
            #expect(params.events.map(\.name) == ["failed"])
            #expect(harness.importer.imported.count == 1)
            #expect(harness.client.protocolError == nil)
            #expect(openDescriptors(sharingFileWith: fd) == 1)
            #expect(harness.importer.destroyed.isEmpty, "no buffer was made, so none is destroyed")
        }

        @Test func flagsTheProtocolDoesNotDefineFailTheImportWithoutAskingTheImporter() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            let fd = anonymousFile(size: 4096)
            defer { close(fd) }
            let params = try harness.makeParams(dmabuf, plane: fd)
            try harness.create(params, width: 64, height: 16, flags: ZwpLinuxBufferParamsV1Flags(rawValue: 8))
            try harness.client.roundtrip()
            #expect(params.events.map(\.name) == ["failed"])
            #expect(harness.importer.imported.isEmpty)
            #expect(openDescriptors(sharingFileWith: fd) == 1)
        }

        @Test func interlacedFlagsReachTheImporter() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            let fd = anonymousFile(size: 4096)
            defer { close(fd) }
            let params = try harness.makeParams(dmabuf, plane: fd)
            try harness.create(params, width: 64, height: 16, flags: [.interlaced, .bottomFirst])
            try harness.client.roundtrip()
            #expect(harness.importer.imported.map(\.flags) == [[.interlaced, .bottomFieldFirst]])
        }

        @Test func aRefusedImportAfterCreateImmedIsInvalidWlBuffer() throws {
            let harness = try DmabufHarness()
            harness.importer.accepts = false
            let dmabuf = try harness.bind()
            let fd = anonymousFile(size: 4096)
            defer { close(fd) }
            let params = try harness.makeParams(dmabuf, plane: fd)
            try harness.createImmediately(params, width: 64, height: 16)
            harness.expectParamsError(params, .invalidWlBuffer)
            #expect(openDescriptors(sharingFileWith: fd) == 1)
        }

        @Test func destroyingUnusedParamsClosesItsPlanes() throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            let fd = anonymousFile(size: 4096)
            defer { close(fd) }
            let params = try harness.makeParams(dmabuf, plane: fd)
            try harness.client.roundtrip()
            #expect(openDescriptors(sharingFileWith: fd) == 2)
            try params.destroy()
            try harness.client.roundtrip()
            #expect(openDescriptors(sharingFileWith: fd) == 1)
            #expect(harness.importer.imported.isEmpty)
        }

        /// Sends `requests` on fresh params with one 4 KiB memfd plane at hand, expects protocol error
        /// `code` on the params, and that no descriptor of the plane stays open in the server.
        private func expectError(
            _ code: ZwpLinuxBufferParamsV1Error, sourceLocation: SourceLocation = #_sourceLocation,
            _ requests: (DmabufHarness, ZwpLinuxBufferParamsV1Proxy, Int32) throws -> Void
        ) throws {
            let harness = try DmabufHarness()
            let dmabuf = try harness.bind()
            let fd = anonymousFile(size: 4096)
            defer { close(fd) }
            let params = try dmabuf.createParams()
            try requests(harness, params, fd)
            harness.expectParamsError(params, code, sourceLocation: sourceLocation)
            #expect(openDescriptors(sharingFileWith: fd) == 1, "plane descriptors closed", sourceLocation: sourceLocation)
        }

        @Test func planeIndexBeyondTheFourthIsPlaneIdx() throws {
            try expectError(.planeIdx) { harness, params, fd in try harness.add(params, fd: fd, index: 4, stride: 256) }
        }

        @Test func settingAPlaneTwiceIsPlaneSet() throws {
            try expectError(.planeSet) { harness, params, fd in
                try harness.add(params, fd: fd, stride: 256)
                try harness.add(params, fd: fd, stride: 256)
            }
        }

        @Test func addAfterCreateIsAlreadyUsed() throws {
            try expectError(.alreadyUsed) { harness, params, fd in
                try harness.add(params, fd: fd, stride: 256)
                try harness.create(params, width: 64, height: 16)
                try harness.add(params, fd: fd, index: 1, stride: 256)
            }
        }

        @Test func createTwiceIsAlreadyUsed() throws {
            try expectError(.alreadyUsed) { harness, params, fd in
                try harness.add(params, fd: fd, stride: 256)
                try harness.create(params, width: 64, height: 16)
                try harness.create(params, width: 64, height: 16)
            }
        }

        @Test func createWithoutPlanesIsIncomplete() throws {
            try expectError(.incomplete) { harness, params, _ in try harness.create(params, width: 64, height: 16) }
        }

        @Test func aGapBetweenPlanesIsIncomplete() throws {
            try expectError(.incomplete) { harness, params, fd in
                try harness.add(params, fd: fd, index: 0, stride: 256)
                try harness.add(params, fd: fd, index: 2, stride: 256)
                try harness.create(params, width: 64, height: 16)
            }
        }

        @Test func aFormatThatWasNotAdvertisedIsInvalidFormat() throws {
            try expectError(.invalidFormat) { harness, params, fd in
                try harness.add(params, fd: fd, stride: 256)
                try harness.create(params, width: 64, height: 16, format: PixelFormat.abgr8888.rawValue)
            }
        }

        @Test func aModifierThatWasNotAdvertisedForTheFormatIsInvalidFormat() throws {
            try expectError(.invalidFormat) { harness, params, fd in
                try harness.add(params, fd: fd, stride: 256, modifier: xTiled)
                try harness.create(params, width: 64, height: 16, format: PixelFormat.xrgb8888.rawValue)
            }
        }

        @Test func planesWithDifferentModifiersAreInvalidFormat() throws {
            try expectError(.invalidFormat) { harness, params, fd in
                try harness.add(params, fd: fd, index: 0, stride: 256, modifier: xTiled)
                try harness.add(params, fd: fd, index: 1, stride: 256, modifier: FormatModifier.linear)
            }
        }

        @Test func zeroWidthIsInvalidDimensions() throws {
            try expectError(.invalidDimensions) { harness, params, fd in
                try harness.add(params, fd: fd, stride: 256)
                try harness.create(params, width: 0, height: 16)
            }
        }

        @Test func negativeHeightIsInvalidDimensions() throws {
            try expectError(.invalidDimensions) { harness, params, fd in
                try harness.add(params, fd: fd, stride: 256)
                try harness.createImmediately(params, width: 64, height: -1)
            }
        }

        @Test func rowsBeyondTheEndOfTheDmabufAreOutOfBounds() throws {
            // 256 bytes × 17 rows = 4352 > the 4096-byte memfd.
            try expectError(.outOfBounds) { harness, params, fd in
                try harness.add(params, fd: fd, stride: 256)
                try harness.create(params, width: 64, height: 17)
            }
        }

        @Test func anOffsetAtTheEndOfTheDmabufIsOutOfBounds() throws {
            try expectError(.outOfBounds) { harness, params, fd in
                try harness.add(params, fd: fd, offset: 4096, stride: 4)
                try harness.create(params, width: 1, height: 1)
            }
        }

        @Test func aPlaneSizeBeyond32BitsIsOutOfBounds() throws {
            try expectError(.outOfBounds) { harness, params, fd in
                try harness.add(params, fd: fd, stride: 0x1000_0000)
                try harness.create(params, width: 64, height: 16)
            }
        }
    }
}

extension LinuxDmabufTests {
    /// Implicit sync: a commit whose dma-buf is still being written waits, on the event loop, until
    /// the buffer's descriptor polls readable. A pipe's read end stands in for a dma-buf whose
    /// fenced writes are pending (readable once a byte is written); the recording importer accepts
    /// it, so these tests need no device.
    @Suite struct ImplicitSync {
        /// A surface with a 64×16 dmabuf whose one plane is the read end of a new pipe.
        private struct FencedWindow {
            let harness: DmabufHarness
            let surfaceProxy: WlSurfaceProxy
            let surface: Surface
            let buffer: WlBufferProxy
            let readEnd: Int32
            let writeEnd: Int32

            init() throws {
                harness = try DmabufHarness()
                var ends: [Int32] = [0, 0]
                try #require(pipe(&ends) == 0)
                (readEnd, writeEnd) = (ends[0], ends[1])
                let params = try harness.makeParams(try harness.bind(), plane: readEnd)
                buffer = try harness.createImmediately(params, width: 64, height: 16)
                try params.destroy()
                (surfaceProxy, surface) = try harness.makeSurface()
            }

            /// The writes are done: the plane polls readable from now on.
            func finishWrites() {
                _ = write(writeEnd, [UInt8(1)], 1)
            }

            func close() {
                Glibc.close(readEnd)
                Glibc.close(writeEnd)
            }

            var commits: [SurfaceState] { harness.core.commits.filter { $0.surface === surface }.map(\.state) }
        }

        @Test func commitsWaitUntilTheirDmabufIsWrittenThenApplyInOrder() throws {
            let window = try FencedWindow()
            defer { window.close() }
            try window.surfaceProxy.attach(buffer: window.buffer, x: 0, y: 0)
            try window.surfaceProxy.commit()
            // A later commit without a buffer waits behind the first.
            try window.surfaceProxy.damage(x: 1, y: 2, width: 3, height: 4)
            try window.surfaceProxy.commit()
            try window.harness.client.roundtrip()
            #expect(window.commits.isEmpty)
            #expect(window.surface.current.buffer == nil)
            // The test's two ends and the server's plane, plus the event loop's copy of the plane
            // that it watches (both ends of a pipe are one inode).
            #expect(openDescriptors(sharingFileWith: window.readEnd) == 4)

            window.finishWrites()
            try window.harness.client.roundtrip()
            let attributes = try #require(window.harness.importer.imported.first)
            #expect(window.commits.map(\.bufferWasAttached) == [true, false])
            #expect(window.commits.map { $0.buffer?.storage } == [.dmabuf(attributes), .dmabuf(attributes)])
            #expect(window.commits.map(\.surfaceDamage) == [[], [IntRect(x: 1, y: 2, width: 3, height: 4)]])
            #expect(openDescriptors(sharingFileWith: window.readEnd) == 3, "the watch was removed")

            // Written buffers apply at once.
            try window.surfaceProxy.attach(buffer: window.buffer, x: 0, y: 0)
            try window.surfaceProxy.commit()
            try window.harness.client.roundtrip()
            #expect(window.commits.count == 3)
        }

        /// Commits queue behind a buffer whose writes never finish only up to the limit: the next
        /// one gets the client no_memory instead of growing the queue.
        @Test func commitsWaitingPastTheLimitDisconnectTheClient() throws {
            let window = try FencedWindow()
            defer { window.close() }
            try window.surfaceProxy.attach(buffer: window.buffer, x: 0, y: 0)
            for _ in 0..<32 { try window.surfaceProxy.commit() }
            try window.harness.client.roundtrip()
            #expect(window.commits.isEmpty)
            try window.surfaceProxy.commit()
            #expect(throws: TestClientError.disconnected(errno: ENOMEM)) { try window.harness.client.roundtrip() }
        }

        /// The watch on a buffer still being written holds its surface without a weak reference,
        /// which would give the surface a side table (every retain and release of it slow).
        @Test func aSurfaceWaitingForItsBuffersWritesIsNotWeaklyReferenced() throws {
            let window = try FencedWindow()
            defer { window.close() }
            try window.surfaceProxy.attach(buffer: window.buffer, x: 0, y: 0)
            try window.surfaceProxy.commit()
            try window.harness.client.roundtrip()
            #expect(openDescriptors(sharingFileWith: window.readEnd) == 4, "the buffer is watched")
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(window.surface) == 1)
            window.finishWrites()
            try window.harness.client.roundtrip()
            #expect(window.commits.map(\.bufferWasAttached) == [true])
        }

        @Test func aSurfaceDestroyedWhileItsCommitWaitsStopsWatchingItsBuffer() throws {
            let window = try FencedWindow()
            defer { window.close() }
            try window.surfaceProxy.attach(buffer: window.buffer, x: 0, y: 0)
            try window.surfaceProxy.commit()
            try window.harness.client.roundtrip()
            #expect(openDescriptors(sharingFileWith: window.readEnd) == 4)

            try window.surfaceProxy.destroy()
            try window.harness.client.roundtrip()
            #expect(openDescriptors(sharingFileWith: window.readEnd) == 3)
            window.finishWrites()
            try window.harness.client.roundtrip()
            #expect(window.commits.isEmpty)
            #expect(window.harness.client.protocolError == nil)
        }
    }
}
