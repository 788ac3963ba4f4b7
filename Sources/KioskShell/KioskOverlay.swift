import BoardConfig
import Compositor
import Graphics
import LayerKit
import Logging
import Signals
import Views

/// What covers an output while the kiosk app shows nothing: the board's splash (its colour and
/// image) from the first frame until the app's first frame, and the splash with a spinning
/// indicator and "Restarting…" while the app restarts. It takes the touches and clicks meant for a missing app;
/// once the app draws, it fades out and lets input through. With the board's animated pattern, the
/// pattern moves behind the image while the overlay covers the app; it freezes for the fade out
/// (and while blanked) and is released once the overlay is gone. Blanking (the board's idle
/// blank-after) covers everything, the splash included, with black, and takes the waking touch.
///
/// It is on the primary output (the windows' output): when that changes it moves to the new one,
/// laid out again for its size and scale, and with no output at all it waits for the next one.
final class KioskOverlay {
    enum State: Equatable {
        case splash
        case restarting
        case hidden
    }

    private(set) var state = State.splash
    private(set) var isBlanked = false
    let view: View
    private let spinner = ReplicatorLayer()
    private let label = TextLayer()
    private let blank = Layer()
    /// The board's splash image, centred, with its pixels.
    private let logo: (layer: Layer, image: Image)?
    private let compositor: Compositor
    private let splash: SplashConfiguration
    private let logger: Logger
    /// The animated pattern, while the overlay covers the app.
    private var pattern: SplashPattern?
    /// The pattern frozen for the fade out, until the fade ends.
    private var fadingPattern: SplashPattern?
    /// The overlay's hold on the primary output changing and the GPU device being replaced.
    private var compositorListeners: [SignalListener] = []

    /// Seconds of the fade between states.
    static let fadeDuration = 0.3
    /// The indicator: twelve dots around a 24-point circle, one revolution a second.
    static let dotCount = 12

    init(compositor: Compositor, splash: SplashConfiguration, logger: Logger) {
        self.compositor = compositor
        self.splash = splash
        self.logger = logger
        view = View(frame: .zero)
        view.layer.name = "kiosk overlay"
        view.layer.backgroundColor = Color(
            red: Double(splash.backgroundColor.red) / 255, green: Double(splash.backgroundColor.green) / 255,
            blue: Double(splash.backgroundColor.blue) / 255, alpha: 1)
        var logo: (layer: Layer, image: Image)?
        if let path = splash.imagePath {
            do {
                let image = try Image(contentsOfPNGFile: path)
                let layer = Layer()
                layer.name = "splash image"
                layer.contents = image
                view.layer.addSublayer(layer)
                logo = (layer, image)
            } catch {
                logger.warning("splash image \(path) cannot be shown: \(error); showing the colour only")
            }
        }
        self.logo = logo
        spinner.name = "restarting indicator"
        spinner.bounds = Rect(x: 0, y: 0, width: 48, height: 48)
        spinner.instanceCount = Self.dotCount
        spinner.instanceTransform = Transform3D(rotationAngle: 2 * .pi / Double(Self.dotCount), x: 0, y: 0, z: 1)
        spinner.instanceDelay = 1.0 / Double(Self.dotCount)
        let dot = Layer()
        dot.bounds = Rect(x: 0, y: 0, width: 6, height: 6)
        dot.cornerRadius = 3
        dot.position = Point(x: 24, y: 3)
        dot.backgroundColor = Color(white: 1)
        dot.opacity = 0.25
        let pulse = BasicAnimation(keyPath: "opacity")
        pulse.fromValue = 1.0
        pulse.toValue = 0.25
        pulse.duration = 1
        pulse.repeatCount = .infinity
        dot.add(pulse, forKey: "pulse")
        spinner.addSublayer(dot)
        spinner.isHidden = true
        view.layer.addSublayer(spinner)
        label.name = "restarting label"
        label.string = "Restarting…"
        label.fontSize = 20
        label.foregroundColor = Color(white: 1)
        label.alignmentMode = .center
        label.isHidden = true
        view.layer.addSublayer(label)
        blank.name = "blank"
        blank.anchorPoint = .zero
        blank.backgroundColor = Color(white: 0)
        blank.isHidden = true
        view.layer.addSublayer(blank)
        if let root = compositor.primaryRootView { place(in: root) }
        updatePattern()
        compositorListeners = [
            compositor.primaryOutputChanged.listen { [unowned self] in primaryOutputChanged() },
            compositor.deviceReplaced.listen { [unowned self] in deviceReplaced() },
        ]
    }

    /// Puts the overlay over `root` (the primary output's views), laid out for its size and scale.
    private func place(in root: RootView) {
        Transaction.begin()
        Transaction.disableActions = true
        defer { Transaction.commit() }
        let bounds = root.bounds
        view.frame = bounds
        if let logo {
            // The image's pixels are the output's: it keeps its size in pixels at any scale.
            logo.layer.contentsScale = root.scaleFactor
            logo.layer.bounds = Rect(
                x: 0, y: 0, width: Double(logo.image.width) / root.scaleFactor, height: Double(logo.image.height) / root.scaleFactor)
            logo.layer.position = Point(x: bounds.midX, y: bounds.midY)
        }
        spinner.position = Point(x: bounds.midX, y: bounds.maxY - max(64, bounds.height / 6))
        label.contentsScale = root.scaleFactor
        label.bounds = Rect(x: 0, y: 0, width: bounds.width, height: 30)
        label.position = Point(x: bounds.midX, y: spinner.position.y + 48)
        blank.bounds = view.bounds
        root.addSubview(view)
    }

    /// The primary output changed: the overlay goes to the new one (or waits for one), and its
    /// pattern, drawn through the old output's device, is made again for the new one.
    private func primaryOutputChanged() {
        Transaction.begin()
        Transaction.disableActions = true
        view.removeFromSuperview()
        removePatterns()
        if let root = compositor.primaryRootView { place(in: root) }
        Transaction.commit()
        updatePattern()
    }

    /// The GPU device was lost and replaced: the pattern, drawn on the lost one, is made again.
    private func deviceReplaced() {
        Transaction.begin()
        Transaction.disableActions = true
        removePatterns()
        Transaction.commit()
        updatePattern()
    }

    private func removePatterns() {
        pattern?.remove()
        pattern = nil
        fadingPattern?.remove()
        fadingPattern = nil
    }

    /// Shows `new`, fading between the splash and the app.
    func show(_ new: State) {
        guard new != state else { return }
        state = new
        update()
    }

    /// Blanks the output (black over everything) or brings back what it showed.
    func setBlanked(_ blanked: Bool) {
        guard blanked != isBlanked else { return }
        isBlanked = blanked
        update()
    }

    private func update() {
        let covers = state != .hidden || isBlanked
        view.isUserInteractionEnabled = covers
        View.animate(duration: Self.fadeDuration) {
            // A restart covers at once (a fade out still running included): the app's window went
            // with its client, and a fade in would start from the black beneath, for as long as
            // its first frames take (seconds on a slow GPU).
            if state == .restarting && !isBlanked {
                Transaction.disableActions = true
                view.layer.removeAnimation(forKey: "opacity")
            }
            if state == .hidden, let fading = pattern {
                pattern = nil
                fading.stop()
                fadingPattern = fading
                Transaction.completionBlock = { [weak self] in
                    fading.remove()
                    if self?.fadingPattern === fading { self?.fadingPattern = nil }
                }
            }
            view.layer.opacity = covers ? 1 : 0
        }
        updatePattern()
        Transaction.begin()
        Transaction.disableActions = true
        spinner.isHidden = state != .restarting
        label.isHidden = state != .restarting
        blank.isHidden = !isBlanked
        Transaction.commit()
    }

    /// Runs the board's pattern while the overlay shows and nothing blanks it.
    private func updatePattern() {
        guard splash.animation == .pattern, state != .hidden, let root = compositor.primaryRootView else { return }
        if pattern == nil {
            // An overlay back before its fade out ended shows a new pattern, not the frozen one.
            fadingPattern?.remove()
            fadingPattern = nil
            Transaction.begin()
            Transaction.disableActions = true
            defer { Transaction.commit() }
            do {
                pattern = try SplashPattern(
                    compositor: compositor, container: view.layer, scale: root.scaleFactor, logger: logger)
            } catch {
                logger.warning("the splash pattern cannot be drawn: \(error); showing the colour only")
                return
            }
        }
        if isBlanked { pattern?.stop() } else { pattern?.run() }
    }
}
