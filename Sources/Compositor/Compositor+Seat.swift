import Graphics
import Logging
import WaylandServer

/// The seat's requests that change what is drawn (client cursors and drag icons) and its
/// selections, which others hear of through `selectionChanged`. Their surfaces'
/// layers already follow their commits (every surface gets a node on commit). They are shown by
/// the cursor of the output the pointer is on, and go with it to another output.
extension Compositor: SeatHandler {
    public func cursorRequested(_ seat: SeatGlobal, surface: Surface?, hotspotX: Int32, hotspotY: Int32) {
        guard let output = pointerOutput else { return }
        let node = surface.map(makeNode(for:))
        withoutAnimation {
            output.cursor.setClientCursor(node, hotspot: Point(x: Double(hotspotX), y: Double(hotspotY)))
        }
    }

    public func dragStarted(_ seat: SeatGlobal, icon: Surface?) {
        guard let output = pointerOutput else { return }
        let node = icon.map(makeNode(for:))
        withoutAnimation { output.cursor.setDragIcon(node) }
    }

    public func dragEnded(_ seat: SeatGlobal) {
        guard let output = pointerOutput else { return }
        withoutAnimation { output.cursor.setDragIcon(nil) }
    }

    public func selectionChanged(_ seat: SeatGlobal, kind: SelectionKind) {
        selectionChanged.emit(kind)
    }

    public func keymapUnavailable(_ seat: SeatGlobal, error: KeymapError) {
        logger.error("\(error): keyboards get no keymap")
    }
}
