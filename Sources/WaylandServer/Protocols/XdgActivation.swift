import SystemCalls
import WaylandProtocols

/// An activation token as the compositor sees it when a client redeems it.
public struct XdgActivationToken {
    public let value: String
    /// Whether this server issued the token, it was not used before and it is not older than
    /// `XdgActivationGlobal.tokenLifetime`. The other fields are nil for an invalid token.
    public let isValid: Bool
    /// What the requesting client attached to the token (all optional in the protocol).
    public let appID: String?
    public let serial: UInt32?
    public let seat: Resource?
    public let requestingSurface: Surface?
    /// The client that requested the token; nil for tokens the compositor issued itself.
    public let requestingClient: Client?
}

/// What the compositor decides about activation requests.
public protocol XdgActivationHandler: AnyObject {
    /// A client asked for `surface` to be activated (focused, raised) with `token`. The compositor
    /// decides; a kiosk typically honours only valid tokens.
    func activationRequested(token: XdgActivationToken, surface: Surface)
}

/// The xdg_activation_v1 global: clients get tokens (xdg_activation_token_v1) and pass them to
/// the clients they launch, which redeem them with activate.
///
/// Tokens are 128-bit random hex strings, valid once, for `tokenLifetime` after they were issued
/// (10 s by default: long enough to start an application, short enough that a stale token from a
/// forgotten launch cannot steal focus later). At most `maximumTokens` are outstanding: a client
/// asking for more in a loop makes the oldest lapse early, instead of costing memory and time.
public final class XdgActivationGlobal {
    /// Far more than launches in flight at once.
    public static let maximumTokens = 256

    private struct Issued {
        var appID: String?
        var serial: UInt32?
        var seat: Resource?
        var surface: Surface?
        var client: Client?
        /// When it was issued, in CLOCK_MONOTONIC nanoseconds.
        let time: UInt64
    }

    private var global: Global?
    private var issued: [String: Issued] = [:]
    public weak var handler: XdgActivationHandler?
    public var tokenLifetime: Duration = .seconds(10)

    public init(display: Display, handler: XdgActivationHandler? = nil) {
        self.handler = handler
        global = Global(display: display, interface: XdgActivation.interface, version: 1) { [weak self] client, version, id in
            _ = XdgActivation(client: client, version: version, id: id, owner: self)
        }
    }

    /// Issues a token the compositor hands out itself, e.g. in XDG_ACTIVATION_TOKEN of an
    /// application it launches.
    public func issueToken(appID: String? = nil) -> String {
        issue(Issued(appID: appID, time: monotonicNanoseconds()))
    }

    fileprivate func issue(appID: String?, serial: UInt32?, seat: Resource?, surface: Surface?, client: Client) -> String {
        issue(Issued(appID: appID, serial: serial, seat: seat, surface: surface, client: client, time: monotonicNanoseconds()))
    }

    private func issue(_ token: Issued) -> String {
        forgetExpiredTokens()
        if issued.count >= Self.maximumTokens, let oldest = issued.min(by: { $0.value.time < $1.value.time }) {
            issued[oldest.key] = nil
        }
        var generator = SystemRandomNumberGenerator()
        let value = (0..<2).map { _ in
            let word = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - word.count) + word
        }.joined()
        issued[value] = token
        return value
    }

    fileprivate func activate(_ value: String, surface: Surface) {
        forgetExpiredTokens()
        let token: XdgActivationToken
        if let record = issued.removeValue(forKey: value) {
            token = XdgActivationToken(value: value, isValid: true, appID: record.appID, serial: record.serial,
                                       seat: record.seat, requestingSurface: record.surface, requestingClient: record.client)
        } else {
            token = XdgActivationToken(value: value, isValid: false, appID: nil, serial: nil, seat: nil,
                                       requestingSurface: nil, requestingClient: nil)
        }
        handler?.activationRequested(token: token, surface: surface)
    }

    private func forgetExpiredTokens() {
        let now = monotonicNanoseconds()
        let (seconds, attoseconds) = tokenLifetime.components
        let lifetime = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        issued = issued.filter { Int64(now - $0.value.time) <= lifetime }
    }
}

final class XdgActivation: Resource, RequestHandler {
    private weak var owner: XdgActivationGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: XdgActivationGlobal?) {
        self.owner = owner
        super.init(XdgActivation.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        case .getActivationToken(let id): _ = XdgActivationTokenRequest(client: client, version: version, id: id, owner: owner)
        case .activate(let token, let surface): owner?.activate(token, surface: surface)
        }
    }
}

/// xdg_activation_token_v1: collects what the client says about the activation, then issues the
/// token once on commit.
final class XdgActivationTokenRequest: Resource, RequestHandler {
    private weak var owner: XdgActivationGlobal?
    private var isCommitted = false
    private var appID: String?
    private var serial: UInt32?
    private var seat: Resource?
    private var surface: Surface?

    init(client: Client, version: UInt32, id: UInt32, owner: XdgActivationGlobal?) {
        self.owner = owner
        super.init(XdgActivationTokenRequest.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case _ where isCommitted:
            throw ProtocolError(XdgActivationTokenV1Error.alreadyUsed, "xdg_activation_token_v1@\(id) was already committed")
        case .setSerial(let serial, let seat):
            self.serial = serial
            self.seat = seat
        case .setAppID(let appID): self.appID = appID
        case .setSurface(let surface): self.surface = surface
        case .commit:
            isCommitted = true
            let token = owner?.issue(appID: appID, serial: serial, seat: seat, surface: surface, client: client) ?? ""
            send(.done(token: token))
        }
    }

    override func destroyed() {
        seat = nil
        surface = nil
    }
}
