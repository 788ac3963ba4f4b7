import WaylandProtocolModel

/// What a session's surfaces have become, followed from the requests it sends and the events it
/// gets: which have a role, were configured and acknowledged, and are mapped (committed with a
/// buffer after that); and the deep states the session reached, which the run summary counts.
extension FuzzSession {
    struct SurfaceState {
        var hasRole = false
        /// The object made for the surface by the request that gave its role (an xdg_surface, a
        /// wl_subsurface); nil for roles without one (a cursor, a drag icon).
        var roleObject: UInt32?
        /// The request that gave it ("wl_pointer.set_cursor"), and whether its object had the
        /// focus then (a cursor counts where the compositor takes it: set after the pointer's enter).
        var roleRequest = ""
        var roleGivenWithFocus = false
        /// A buffer attached (true) or detached (false) since the last commit.
        var attached: Bool?
        var hasBuffer = false
        /// Committed since it got its role (xdg_surface's initial commit).
        var committedWithRole = false
        var configured = false
        /// The size the last configure with one asked for.
        var configuredSize: (width: Int32, height: Int32)?
        /// The last configure that carried a serial, until the session acknowledges it.
        var unacknowledged: (object: UInt32, serial: UInt32)?
        var acknowledged = false
        var mapped = false
        /// When it was last committed, in the session's count of commits.
        var lastCommit = 0
        /// Its role object was destroyed: it cannot be mapped again.
        var defunct = false
    }

    /// Whether the surface is mapped and so is every surface it hangs from (a subsurface's parent,
    /// a popup's).
    func isShown(_ surface: UInt32, depth: Int = 0) -> Bool {
        guard depth < 16, let state = surfaces[surface], state.mapped, !state.defunct else { return false }
        guard let parent = parentSurface(of: surface) else { return true }
        return isShown(parent, depth: depth + 1)
    }

    /// The surface its role object (or that object's first child, a popup) names as parent.
    func parentSurface(of surface: UInt32) -> UInt32? {
        guard let role = surfaces[surface]?.roleObject else { return nil }
        let parent = objects[role]?.parent ?? objects[role]?.firstChild.flatMap { objects[$0]?.parent }
        return parent.flatMap { objects[$0]?.surface }.flatMap { $0 == surface ? nil : $0 }
    }

    /// Whether the surface's role gets configure events (an xdg_surface's) that it must answer
    /// before its buffer counts.
    func expectsConfigure(_ surface: UInt32) -> Bool {
        guard let role = surfaces[surface]?.roleObject, let object = objects[role] else { return false }
        return object.interface.events.contains { $0.name == "configure" && $0.arguments.contains { $0.name == "serial" } }
    }

    /// Follows a request as it is sent: what the objects it made belong to, roles, attachments,
    /// commits and acknowledgements.
    func track(_ message: Message, on id: UInt32, values: [WireValue], created: [UInt32]) {
        guard let object = objects[id] else { return }
        var surfaceArgument: UInt32?
        var parent: UInt32?
        for (argument, value) in zip(message.arguments, values) {
            guard case .object(let other) = value, other != 0, objects[other]?.alive == true else { continue }
            if argument.interface == "wl_surface", surfaceArgument == nil, ["surface", "icon"].contains(argument.name) { surfaceArgument = other }
            if argument.name == "parent" { parent = other }
        }
        for new in created {
            let isSurface = objects[new]?.interface.name == "wl_surface"
            objects[new]?.surface = isSurface ? new : surfaceArgument ?? (object.isGlobal ? nil : object.surface)
            objects[new]?.parent = parent
            if isSurface { surfaces[new] = SurfaceState() }
        }
        if !object.isGlobal, objects[id]?.firstChild == nil { objects[id]?.firstChild = created.first }
        let name = object.interface.name + "." + message.name
        if model.givesRoles(object.interface.name), let surface = surfaceArgument, surfaces[surface]?.hasRole == false {
            surfaces[surface]?.hasRole = true
            surfaces[surface]?.roleObject = created.first
            surfaces[surface]?.roleRequest = name
            surfaces[surface]?.roleGivenWithFocus = object.entered
        }
        if message.isDestructor, let surface = object.surface, surfaces[surface] != nil {
            if object.interface.name == "wl_surface" {
                surfaces[surface] = nil
            } else if surfaces[surface]?.roleObject == id || surfaces[surface]?.roleObject.flatMap({ objects[$0]?.firstChild }) == id {
                surfaces[surface]?.mapped = false
                surfaces[surface]?.defunct = true
            }
        }
        // A serial is answered once, and those before it are past (an acknowledged configure
        // acknowledges the earlier ones), however the request got it.
        if let index = message.arguments.firstIndex(where: { $0.name == "serial" }), case .uint(let serial) = values[index],
           let answered = objects[id]?.serials.firstIndex(of: serial) {
            objects[id]?.serials.removeFirst(answered + 1)
        }
        if message.name.hasPrefix("ack_"), let surface = object.surface, let pending = surfaces[surface]?.unacknowledged, pending.object == id {
            surfaces[surface]?.unacknowledged = nil
            surfaces[surface]?.acknowledged = true
        }
        switch name {
        case "wl_surface.attach":
            if case .object(let buffer) = values.first { surfaces[id]?.attached = buffer != 0 }
        case "wl_surface.commit":
            commit(id)
        case "wl_surface.set_buffer_transform", "wl_surface.set_buffer_scale":
            if isShown(id) { reach(.transformOnMappedSurface) }
        case "wp_viewport.set_source", "wp_viewport.set_destination":
            if let surface = object.surface, isShown(surface) { reach(.viewportOnMappedSurface) }
        case "wl_data_device.start_drag":
            if values.count > 1, case .object(let origin) = values[1], isShown(origin) { reach(.dragFromMappedSurface) }
        case "zwp_text_input_v3.enable":
            if object.entered { reach(.textInputOnFocusedSurface) }
        default:
            break
        }
    }

    private func commit(_ surface: UInt32) {
        guard var state = surfaces[surface] else { return }
        commits += 1
        state.lastCommit = commits
        if let attached = state.attached { state.hasBuffer = attached }
        state.attached = nil
        state.committedWithRole = state.hasRole
        // Mapped once committed with a buffer after its configure was acknowledged, and until the
        // buffer is detached (a later configure does not unmap it).
        state.mapped = state.hasRole && state.hasBuffer && !state.defunct && (state.mapped || !expectsConfigure(surface) || state.acknowledged)
        surfaces[surface] = state
        guard state.mapped else { return }
        if isShown(surface) {
            for related in objects.values where related.alive && related.surface == surface {
                switch related.interface.name {
                case "xdg_toplevel": reach(.mappedToplevel)
                case "xdg_popup": reach(.mappedPopup)
                default: break
                }
            }
            if state.roleRequest == "wl_pointer.set_cursor", state.roleGivenWithFocus { reach(.cursorSurface) }
        }
        // A subsurface shows once both it and its parent have been committed with buffers.
        let subsurfaces = [surface] + objects.values.filter { $0.alive && $0.interface.name == "wl_subsurface" }.compactMap(\.surface)
        if subsurfaces.contains(where: { surfaces[$0]?.roleRequest == "wl_subcompositor.get_subsurface" && isShown($0) }) {
            reach(.mappedSubsurface)
        }
    }

    /// Follows an event: configures (and whether the session owes an acknowledgement), enter and
    /// leave.
    func track(event: Message, on id: UInt32, values: [WireValue]) {
        guard let object = objects[id] else { return }
        switch event.name {
        case "configure":
            guard let surface = object.surface, surfaces[surface] != nil else { return }
            surfaces[surface]?.configured = true
            let sizes = ["width", "height"].map { name in event.arguments.firstIndex { $0.name == name }.map { values[$0] } }
            if case .int(let width)? = sizes[0], case .int(let height)? = sizes[1], width > 0, height > 0 {
                surfaces[surface]?.configuredSize = (width, height)
            }
            if let index = event.arguments.firstIndex(where: { $0.name == "serial" }), case .uint(let serial) = values[index] {
                surfaces[surface]?.unacknowledged = (id, serial)
                surfaces[surface]?.acknowledged = false
            }
            if object.interface.name == "xdg_popup" {
                reach(.configuredPopup)
                // Its parent xdg_surface is itself a popup's.
                if let parent = object.parent, let sibling = objects[parent]?.firstChild, objects[sibling]?.interface.name == "xdg_popup" {
                    reach(.configuredPopupOfPopup)
                }
            }
        case "enter":
            objects[id]?.entered = true
        case "leave":
            objects[id]?.entered = false
        default:
            break
        }
    }

    func reach(_ milestone: Milestone) { milestones.insert(milestone) }
}

/// Deep states a session reached, each counted once per session in the run's summary.
public enum Milestone: String, CaseIterable, Sendable {
    case mappedToplevel = "a mapped toplevel"
    case configuredPopup = "a configured popup"
    case configuredPopupOfPopup = "a configured popup of a popup"
    case mappedPopup = "a mapped popup"
    case mappedSubsurface = "a mapped subsurface of a mapped surface"
    case viewportOnMappedSurface = "a viewport's source or destination on a mapped surface"
    case transformOnMappedSurface = "a buffer transform or scale on a mapped surface"
    case cursorSurface = "a cursor surface (set after the pointer's enter) committed with a buffer"
    case dragFromMappedSurface = "a drag started from a mapped surface"
    case textInputOnFocusedSurface = "text input enabled on a focused surface"
    case captureWhileMapped = "a capture while a surface was mapped"
}
