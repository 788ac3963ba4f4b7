import Foundation

/// The timing of a layer or an animation (CAMediaTiming). A timed object's local time follows from
/// its parent's by `t = (tp − beginTime) · speed + timeOffset`, so speeds multiply down the tree.
public protocol MediaTiming: AnyObject {
    var beginTime: Double { get set }
    var duration: Double { get set }
    var speed: Double { get set }
    var timeOffset: Double { get set }
    var repeatCount: Double { get set }
    var repeatDuration: Double { get set }
    var autoreverses: Bool { get set }
    var fillMode: FillMode { get set }
}

/// The host's clock for media time (CACurrentMediaTime): seconds of the monotonic clock.
public func currentMediaTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

extension LayerProperties {
    /// The layer's local time for its superlayer's time `parentTime`.
    public func localTime(fromParentTime parentTime: Double) -> Double {
        (parentTime - beginTime) * speed + timeOffset
    }

    /// The superlayer's time for this layer's local time; with speed 0 every parent time maps to
    /// the same local time, so the inverse answers the layer's beginTime.
    public func parentTime(fromLocalTime localTime: Double) -> Double {
        speed == 0 ? beginTime : (localTime - timeOffset) / speed + beginTime
    }
}

extension Layer: MediaTiming {
    public var beginTime: Double {
        get { properties.beginTime }
        set { setProperty(\.beginTime, newValue, key: "beginTime") }
    }
    /// Layers themselves run forever; the property is kept for key-value parity with Core Animation.
    public var duration: Double {
        get { properties.duration }
        set { setProperty(\.duration, newValue, key: "duration") }
    }
    /// A multiplier of the rate at which local time passes, applied on top of the superlayers':
    /// a layer at 2.0 under a layer at 2.0 runs at 4× media time.
    public var speed: Double {
        get { properties.speed }
        set { setProperty(\.speed, newValue, key: "speed") }
    }
    public var timeOffset: Double {
        get { properties.timeOffset }
        set { setProperty(\.timeOffset, newValue, key: "timeOffset") }
    }
    public var repeatCount: Double {
        get { properties.repeatCount }
        set { setProperty(\.repeatCount, newValue, key: "repeatCount") }
    }
    public var repeatDuration: Double {
        get { properties.repeatDuration }
        set { setProperty(\.repeatDuration, newValue, key: "repeatDuration") }
    }
    public var autoreverses: Bool {
        get { properties.autoreverses }
        set { setProperty(\.autoreverses, newValue, key: "autoreverses") }
    }
    public var fillMode: FillMode {
        get { properties.fillMode }
        set { setProperty(\.fillMode, newValue, key: "fillMode") }
    }

    /// Converts media time (the root's parent time) to this layer's local time.
    func localTime(fromMediaTime t: Double) -> Double {
        var chain: [Layer] = []
        var layer: Layer? = self
        while let l = layer {
            chain.append(l)
            layer = l.parentInTree
        }
        return chain.reversed().reduce(t) { $1.properties.localTime(fromParentTime: $0) }
    }

    /// Converts this layer's local time to media time.
    func mediaTime(fromLocalTime t: Double) -> Double {
        var time = t
        var layer: Layer? = self
        while let l = layer {
            time = l.properties.parentTime(fromLocalTime: time)
            layer = l.parentInTree
        }
        return time
    }

    /// Converts `t` from `layer`'s local time (media time when nil) to this layer's local time.
    public func convertTime(_ t: Double, from layer: Layer?) -> Double {
        localTime(fromMediaTime: layer?.mediaTime(fromLocalTime: t) ?? t)
    }

    /// Converts `t` from this layer's local time to `layer`'s local time (media time when nil).
    public func convertTime(_ t: Double, to layer: Layer?) -> Double {
        let media = mediaTime(fromLocalTime: t)
        return layer?.localTime(fromMediaTime: media) ?? media
    }
}
