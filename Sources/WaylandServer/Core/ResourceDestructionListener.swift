internal import CVitrineWayland

/// Runs `body` once when a resource is destroyed, before the resource's own `destroyed()` (so the
/// Swift object is still whole), unless the listener was released first. Extensions use it to
/// follow the surfaces they are attached to.
final class ResourceDestructionListener {
    private var listener: OpaquePointer?
    private let body: () -> Void

    convenience init(_ resource: Resource, body: @escaping () -> Void) {
        self.init(raw: resource.raw, body: body)
    }

    /// Watches any wl_resource, Vitrine's own or libwayland's (wl_shm buffers).
    init(raw: OpaquePointer?, body: @escaping () -> Void) {
        self.body = body
        guard let raw else { return }
        // Unretained: the owner keeps this object alive, and deinit unhooks the listener.
        let listener = vitrine_listener_create(Unmanaged.passUnretained(self).toOpaque()) { context, _ in
            guard let context else { return }
            Unmanaged<ResourceDestructionListener>.fromOpaque(context).takeUnretainedValue().fire()
        }
        vitrine_resource_add_destroy_listener(raw, listener)
        self.listener = listener
    }

    deinit {
        vitrine_listener_destroy(listener)
    }

    private func fire() {
        vitrine_listener_destroy(listener)
        listener = nil
        body()
    }
}
