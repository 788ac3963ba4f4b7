import Views

/// The primary output is the one the windows live on (the first, by the backend's order of
/// importance). The compositor's own views that belong with the windows (the kiosk shell's splash
/// and overlays, the on-screen keyboard) follow it when it changes.
extension Compositor {
    /// The primary output's root view; nil while there is no output.
    public var primaryRootView: RootView? { outputs.first?.rootView }
}
