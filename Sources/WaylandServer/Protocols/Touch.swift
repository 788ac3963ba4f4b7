/// One touch point: it stays with the surface it went down on until it goes up.
struct TouchPoint {
    /// Strong, not weak (docs/architecture.md: a weak reference would give the surface, which
    /// every frame retains, a side table): let go of when the point goes up, is cancelled, or
    /// its surface stops being shown (`touchSurfaceGone`, which the compositor calls for a
    /// destroyed surface too).
    let surface: Surface
    let client: Client
    /// The serial of its down event (a drag must quote it).
    let serial: UInt32
    /// The last position reported, in the surface's coordinates.
    var x: Double
    var y: Double
}

/// The seat's touch points and the clients owed a frame.
struct TouchState {
    var points: [Int32: TouchPoint] = [:]
    var clientsInFrame: [Client] = []

    mutating func joinFrame(_ client: Client) {
        if !clientsInFrame.contains(where: { $0 === client }) { clientsInFrame.append(client) }
    }
}

extension SeatGlobal {
    /// Touch point `id` went down on `surface` at surface-local (`x`, `y`); returns the event's serial.
    /// The point's motion and up go to that surface, whatever lies under it later.
    @discardableResult
    public func touchDown(_ surface: Surface, id: Int32, x: Double, y: Double, time: UInt32) -> UInt32 {
        let serial = display.nextSerial()
        touch.points[id] = TouchPoint(surface: surface, client: surface.client, serial: serial, x: x, y: y)
        let target = seatClient(for: surface.client)
        target.record(serial)
        touch.joinFrame(surface.client)
        for resource in target.touches {
            resource.send(.down(serial: serial, time: time, surface: surface, id: id, x: x, y: y))
        }
        return serial
    }

    /// Touch point `id` moved to (`x`, `y`) in its surface's coordinates. During a drag started by
    /// this point the drag moves instead, and (`x`, `y`) are in the drag's focus surface coordinates.
    public func touchMotion(id: Int32, x: Double, y: Double, time: UInt32) {
        guard var point = touch.points[id] else { return }
        point.x = x
        point.y = y
        touch.points[id] = point
        if let drag = data.drag, case .touch(id) = drag.trigger {
            dragMotion(time: time, x: x, y: y)
            return
        }
        guard point.surface.isAlive else { return }
        touch.joinFrame(point.client)
        for resource in existingSeatClient(for: point.client)?.touches ?? [] {
            resource.send(.motion(time: time, id: id, x: x, y: y))
        }
    }

    /// Touch point `id` went up; returns the event's serial. Lifting the point that started a drag drops it.
    @discardableResult
    public func touchUp(id: Int32, time: UInt32) -> UInt32 {
        let serial = display.nextSerial()
        guard let point = touch.points.removeValue(forKey: id) else { return serial }
        if let drag = data.drag, case .touch(id) = drag.trigger {
            dropDrag()
            return serial
        }
        guard point.surface.isAlive else { return serial }
        let target = seatClient(for: point.client)
        target.record(serial)
        touch.joinFrame(point.client)
        for resource in target.touches { resource.send(.up(serial: serial, time: time, id: id)) }
        return serial
    }

    /// The surface that touch point `id` went down on stopped being shown (unmapped or destroyed):
    /// the point ends for its client with wl_touch.up (which names no surface, so it can still be
    /// sent while the surface goes away) and is forgotten. A point that drives a drag is left alone.
    @discardableResult
    public func touchSurfaceGone(id: Int32, time: UInt32) -> UInt32 {
        let serial = display.nextSerial()
        guard let point = touch.points[id] else { return serial }
        if let drag = data.drag, case .touch(id) = drag.trigger { return serial }
        touch.points[id] = nil
        guard let target = existingSeatClient(for: point.client), !target.touches.isEmpty else { return serial }
        target.record(serial)
        touch.joinFrame(point.client)
        for resource in target.touches { resource.send(.up(serial: serial, time: time, id: id)) }
        return serial
    }

    /// Ends a group of touch events: a frame to every client that got one since the last frame.
    public func touchFrame() {
        for client in touch.clientsInFrame {
            for resource in existingSeatClient(for: client)?.touches ?? [] { resource.send(.frame) }
        }
        touch.clientsInFrame = []
    }

    /// The compositor took the touch sequence over (a gesture): every client with points down gets
    /// cancel and the points are forgotten; a touch drag is cancelled.
    public func touchCancel() {
        var clients: [Client] = []
        for point in touch.points.values where !clients.contains(where: { $0 === point.client }) {
            clients.append(point.client)
        }
        for client in clients {
            for resource in existingSeatClient(for: client)?.touches ?? [] { resource.send(.cancel) }
        }
        touch.points = [:]
        touch.clientsInFrame = []
        if data.drag?.isPointerDriven == false { cancelDrag() }
    }

    func added(_ resource: TouchResource) {
        seatClient(for: resource.client).touches.append(resource)
    }
}

/// One client's wl_touch.
final class TouchResource: Resource, RequestHandler {
    private weak var seat: SeatGlobal?

    init(client: Client, version: UInt32, id: UInt32, seat: SeatGlobal?) {
        self.seat = seat
        super.init(TouchResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .release: destroy()
        }
    }

    override func destroyed() {
        seat?.existingSeatClient(for: client)?.touches.removeAll { $0 === self }
    }
}
