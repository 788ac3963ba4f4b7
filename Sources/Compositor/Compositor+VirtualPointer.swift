import LayerKit
import WaylandServer

/// Virtual pointers (zwlr_virtual_pointer_v1) of the clients allowed virtual input
/// (`Privilege.virtualInput`, wayvnc's remote pointer) move the one pointer as a device would.
/// The clients' timestamps are not trusted: events take the compositor's time.
extension Compositor: VirtualPointerHandler {
    public func virtualPointerFrame(_ events: [VirtualPointerEvent]) {
        for event in events {
            switch event {
            case .motion(let dx, let dy, _):
                pointerMoved(byX: dx, y: dy)
            case .motionAbsolute(let x, let y, let output, _):
                // Over its output, or over the whole layout (as an absolute device mapped to none).
                let area = output.map { output in outputs.first { $0.global === output }?.layoutRect } ?? layoutBounds
                guard let area else { continue }
                pointerMoved(toX: area.origin.x + x * area.size.width, y: area.origin.y + y * area.size.height)
            case .button(let button, let pressed, _):
                pointerButton(button, pressed: pressed)
            case .axis(let axis, let value, let value120, let source, _):
                pointerScrolled(axis: axis, value: value, value120: value120, source: source)
            case .axisStop(let axis, _):
                pointerScrolled(axis: axis, value: 0, value120: nil, source: .finger)
            }
        }
    }
}
