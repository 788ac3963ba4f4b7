import CVitrineWLCS
import Compositor
import Glibc

// The functions the C integration (Sources/CVitrineWLCS) calls; each takes the server made by
// vitrine_wlcs_create as an opaque pointer.

private func server(_ pointer: UnsafeMutableRawPointer?) -> WLCSServer {
    Unmanaged<WLCSServer>.fromOpaque(pointer!).takeUnretainedValue()
}

@_cdecl("vitrine_wlcs_create")
func vitrineWLCSCreate() -> UnsafeMutableRawPointer {
    let extensions = Compositor.advertisedProtocols
    var names = extensions.map { UnsafePointer(strdup($0.name)) }
    let versions = extensions.map(\.version)
    names.withUnsafeMutableBufferPointer { namePointers in
        versions.withUnsafeBufferPointer { vitrine_wlcs_set_extensions(namePointers.baseAddress, $0.baseAddress, extensions.count) }
    }
    names.forEach { free(UnsafeMutablePointer(mutating: $0)) }
    return Unmanaged.passRetained(WLCSServer()).toOpaque()
}

@_cdecl("vitrine_wlcs_destroy")
func vitrineWLCSDestroy(_ pointer: UnsafeMutableRawPointer?) {
    Unmanaged<WLCSServer>.fromOpaque(pointer!).release()
}

@_cdecl("vitrine_wlcs_start")
func vitrineWLCSStart(_ pointer: UnsafeMutableRawPointer?) { server(pointer).start() }

@_cdecl("vitrine_wlcs_stop")
func vitrineWLCSStop(_ pointer: UnsafeMutableRawPointer?) { server(pointer).stop() }

@_cdecl("vitrine_wlcs_create_client_socket")
func vitrineWLCSCreateClientSocket(_ pointer: UnsafeMutableRawPointer?) -> Int32 { server(pointer).createClientSocket() }

@_cdecl("vitrine_wlcs_position_window")
func vitrineWLCSPositionWindow(_ pointer: UnsafeMutableRawPointer?, _ fd: Int32, _ surfaceID: UInt32, _ x: Int32, _ y: Int32) {
    server(pointer).positionWindow(clientSocket: fd, surfaceID: surfaceID, x: x, y: y)
}

@_cdecl("vitrine_wlcs_make_device")
func vitrineWLCSMakeDevice(_ pointer: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer { server(pointer).makeDevice() }

@_cdecl("vitrine_wlcs_destroy_device")
func vitrineWLCSDestroyDevice(_ pointer: UnsafeMutableRawPointer?, _ device: UnsafeMutableRawPointer?) {
    server(pointer).destroyDevice(device!)
}

@_cdecl("vitrine_wlcs_pointer_move")
func vitrineWLCSPointerMove(_ pointer: UnsafeMutableRawPointer?, _ device: UnsafeMutableRawPointer?, _ x: Double, _ y: Double, _ relative: Int32) {
    server(pointer).pointerMove(device!, x: x, y: y, relative: relative != 0)
}

@_cdecl("vitrine_wlcs_pointer_button")
func vitrineWLCSPointerButton(_ pointer: UnsafeMutableRawPointer?, _ device: UnsafeMutableRawPointer?, _ button: Int32, _ pressed: Int32) {
    server(pointer).pointerButton(device!, button: button, pressed: pressed != 0)
}

@_cdecl("vitrine_wlcs_touch")
func vitrineWLCSTouch(_ pointer: UnsafeMutableRawPointer?, _ device: UnsafeMutableRawPointer?, _ x: Double, _ y: Double, _ phase: Int32) {
    server(pointer).touch(device!, x: x, y: y, phase: phase)
}
