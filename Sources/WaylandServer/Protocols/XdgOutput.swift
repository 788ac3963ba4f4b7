import WaylandProtocols

/// The zxdg_output_manager_v1 global (version 3): each output's place and size in the global
/// (logical) space, its name and description. Changes follow `Output.update(_:)` by themselves.
public final class XdgOutputManagerGlobal {
    private var global: Global?
    private var xdgOutputs: [XdgOutput] = []
    // Outputs whose update handlers already include ours: one handler per output, however many
    // xdg_outputs come and go (Output keeps its handlers for life).
    private var followed: [WeakOutput] = []

    private struct WeakOutput {
        weak var output: Output?
    }

    public init(display: Display) {
        global = Global(display: display, interface: XdgOutputManagerResource.interface, version: 3) {
            [weak self] client, version, id in
            _ = XdgOutputManagerResource(client: client, version: version, id: id, owner: self)
        }
    }

    fileprivate func created(_ xdgOutput: XdgOutput, for output: Output) {
        xdgOutputs.append(xdgOutput)
        followed.removeAll { $0.output == nil }
        guard !followed.contains(where: { $0.output === output }) else { return }
        followed.append(WeakOutput(output: output))
        output.updateHandlers.append { [weak self, weak output] in
            guard let self, let output else { return }
            for xdgOutput in xdgOutputs where xdgOutput.output === output { xdgOutput.sendChanges(output.state) }
        }
    }

    fileprivate func forget(_ xdgOutput: XdgOutput) {
        xdgOutputs.removeAll { $0 === xdgOutput }
    }
}

final class XdgOutputManagerResource: Resource, RequestHandler {
    private weak var owner: XdgOutputManagerGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: XdgOutputManagerGlobal?) {
        self.owner = owner
        super.init(XdgOutputManagerResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        case .getXdgOutput(let id, let outputResource):
            let xdgOutput = XdgOutput(client: client, version: version, id: id, outputResource: outputResource, manager: owner)
            // An output whose global is gone gets an inert xdg_output.
            guard let output = outputResource.owner else { return }
            owner?.created(xdgOutput, for: output)
            xdgOutput.sendAll(output.state)
        }
    }
}

/// zxdg_output_v1: one client's view of an output's logical geometry.
final class XdgOutput: Resource, RequestHandler {
    private weak var outputResource: OutputResource?
    private(set) weak var output: Output?
    private weak var manager: XdgOutputManagerGlobal?
    // What was sent, so that updates send only what changed.
    private var position: (x: Int32, y: Int32)?
    private var size: (width: Int32, height: Int32)?
    private var description: String?

    init(client: Client, version: UInt32, id: UInt32, outputResource: OutputResource?, manager: XdgOutputManagerGlobal?) {
        self.outputResource = outputResource
        self.manager = manager
        output = outputResource?.owner
        super.init(XdgOutput.self, client: client, version: version, id: id)
    }

    func sendAll(_ state: OutputDescription) {
        sendPosition(state)
        sendSize(state)
        send(.name(name: state.name))
        sendDescription(state)
        sendDone()
    }

    /// Within `Output.update(_:)`: what changed, then zxdg_output.done where wl_output.done does
    /// not close the burst (`Output.update` sends that one). Name never changes, and the
    /// description may change only for version 3 (earlier versions hear it once).
    func sendChanges(_ state: OutputDescription) {
        var changed = false
        if position?.x != state.x || position?.y != state.y {
            sendPosition(state)
            changed = true
        }
        if size?.width != state.logicalWidth || size?.height != state.logicalHeight {
            sendSize(state)
            changed = true
        }
        if version >= 3 && description != state.description {
            sendDescription(state)
            changed = true
        }
        if changed, !closedByOutputDone { send(.done) }
    }

    /// Whether wl_output.done closes this object's bursts (version 3 with a wl_output of version 2 or later).
    private var closedByOutputDone: Bool {
        guard version >= 3, let outputResource, outputResource.isAlive else { return false }
        return outputResource.version >= 2
    }

    private func sendPosition(_ state: OutputDescription) {
        position = (state.x, state.y)
        send(.logicalPosition(x: state.x, y: state.y))
    }

    private func sendSize(_ state: OutputDescription) {
        size = (state.logicalWidth, state.logicalHeight)
        send(.logicalSize(width: state.logicalWidth, height: state.logicalHeight))
    }

    private func sendDescription(_ state: OutputDescription) {
        description = state.description
        send(.description(description: state.description))
    }

    /// Version 3 deprecates zxdg_output_v1.done: wl_output.done (wl_output version 2 and later)
    /// closes the burst instead.
    private func sendDone() {
        if closedByOutputDone, let outputResource {
            outputResource.send(.done)
        } else {
            send(.done)
        }
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        }
    }

    override func destroyed() {
        manager?.forget(self)
    }
}
