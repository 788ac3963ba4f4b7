internal import CVitrineWayland
internal import CWaylandServer

/// wl_surface.frame callbacks (wl_callback) waiting for a frame, first to last: a surface's
/// uncommitted and committed ones, an output's for the frame it is presenting.
///
/// A callback is libwayland's resource alone, on the list through its own link, as weston and
/// wlroots keep them: no object of Vitrine's per frame (a Swift object per callback cost an
/// allocation, its retains and releases and its dispatch glue every frame), and a callback whose
/// client went leaves whatever list it was on. Moving a list's callbacks to another is O(1).
public final class FrameCallbacks {
    /// The list's head, where the callbacks' links are; allocated apart, so that it never moves.
    private let head: UnsafeMutablePointer<wl_list>

    public init() {
        head = .allocate(capacity: 1)
        wl_list_init(head)
    }

    /// Callbacks still here are never answered: they stay their client's until it goes.
    deinit {
        vitrine_frame_callbacks_forget(head)
        head.deallocate()
    }

    /// Read where the head lies (wl_list_empty's test), without a call into libwayland.
    public var isEmpty: Bool { head.pointee.next == head }

    /// The callbacks' object ids, first to last.
    public var ids: [UInt32] {
        var ids: [UInt32] = []
        var link = head.pointee.next
        while let current = link, current != head {
            ids.append(wl_resource_get_id(wl_resource_from_link(current)))
            link = current.pointee.next
        }
        return ids
    }

    /// Creates `client`'s callback `id` at the end of the list.
    func add(_ id: UInt32, of client: Client) {
        guard let raw = client.raw else { return }
        _ = vitrine_frame_callback_create(raw, id, head)
    }

    /// Moves every callback to the end of `list`, in order, leaving this list empty.
    public func move(to list: FrameCallbacks) {
        guard list !== self, !isEmpty else { return }
        wl_list_insert_list(list.head.pointee.prev, head)
        wl_list_init(head)
    }

    /// Sends every callback done with `milliseconds` (the frame's time) and destroys it, as the
    /// protocol says, first to last; the list is left empty.
    public func done(_ milliseconds: UInt32) {
        vitrine_frame_callbacks_done(head, milliseconds)
    }

    /// Takes every callback off the list unanswered (their surface went).
    func removeAll() {
        vitrine_frame_callbacks_forget(head)
    }
}
