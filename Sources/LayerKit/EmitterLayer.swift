import Foundation

/// Where an `EmitterLayer` emits from, about `emitterPosition` (CAEmitterLayerEmitterShape).
public enum EmitterShape: String, Sendable, Hashable {
    /// The emitter position itself.
    case point
    /// A horizontal line of `emitterSize.width`, centred on the position.
    case line
    /// A rectangle of `emitterSize`, centred on the position.
    case rectangle
    /// A circle of diameter `emitterSize.width` (Vitrine's reading), centred on the position.
    case circle
}

/// Which part of the shape emits (CAEmitterLayerEmitterMode). The emitter is flat, so `volume`
/// emits from the surface as `surface` does.
public enum EmitterMode: String, Sendable, Hashable {
    case outline, surface, volume
}

/// How particles are composited (CAEmitterLayerRenderMode).
public enum EmitterRenderMode: String, Sendable, Hashable {
    /// Cell by cell, each cell's particles oldest first, then its sub-cells' (Vitrine's fixed order).
    case unordered
    /// All cells' particles by age, the oldest drawn first (at the back).
    case oldestFirst
    /// All cells' particles by age, the oldest drawn last (in front).
    case oldestLast
    /// In `unordered` order, each particle's colour added to what is below it.
    case additive
}

/// One kind of particle an emitter makes (CAEmitterCell), as a value. Values with a range are
/// drawn per particle, uniformly from [value − range/2, value + range/2], as CAEmitterLayer.h says
/// of its random properties; speeds change a value per second of the particle's age.
public struct EmitterCell: Sendable, Hashable {
    public var name: String?
    public var isEnabled = true
    /// Particles per second.
    public var birthRate = 0.0
    /// Seconds a particle lives.
    public var lifetime = 0.0
    public var lifetimeRange = 0.0
    /// Points per second, in the emission direction.
    public var velocity = 0.0
    public var velocityRange = 0.0
    /// Points per second², in the layer's space.
    public var xAcceleration = 0.0
    public var yAcceleration = 0.0
    /// The emission direction's angle in the layer's plane from +x towards +y (radians).
    public var emissionLongitude = 0.0
    /// The angle out of the plane: the emitter is drawn flat, so it shortens the in-plane velocity by its cosine.
    public var emissionLatitude = 0.0
    /// The spread of the direction about `emissionLongitude`.
    public var emissionRange = 0.0
    /// Radians per second.
    public var spin = 0.0
    public var spinRange = 0.0
    public var scale = 1.0
    public var scaleRange = 0.0
    public var scaleSpeed = 0.0
    /// Multiplies the contents.
    public var color = Color.white
    public var redRange = 0.0, greenRange = 0.0, blueRange = 0.0, alphaRange = 0.0
    public var redSpeed = 0.0, greenSpeed = 0.0, blueSpeed = 0.0, alphaSpeed = 0.0
    /// The particle's image; a cell without one draws nothing, as in Core Animation.
    public var contents: Image?
    public var contentsRect = Rect(x: 0, y: 0, width: 1, height: 1)
    public var contentsScale = 1.0
    /// Cells that each particle of this one emits (CAEmitterCell.emitterCells): every particle
    /// is an emitter for them over its lifetime; see `EmitterProperties.particles(atTime:)`.
    public var emitterCells: [EmitterCell] = []

    public init() {}
}

/// One live particle at one moment, in the emitter layer's bounds space.
public struct Particle: Sendable, Equatable {
    /// Which of the emitter's cells made it, or made its first ancestor.
    public var cellIndex: Int
    /// Its place in its cell's birth order: it was born at index / birthRate seconds while the
    /// rate has not changed (see `EmitterProperties.birthRateHistory`); for a sub-cell's
    /// particle, its place among its parent's births, at index / birthRate seconds of its parent's age.
    public var index: Int
    /// The cell that made it: `cellIndex`, then the index in each `emitterCells` below it (one
    /// entry for a particle of the emitter's own cells).
    public var cellPath: [Int]
    /// The index of the particle that emitted it; nil for a particle of the emitter's own cells.
    public var parentIndex: Int?
    public var birthTime: Double
    public var age: Double
    public var position: Point
    /// Radians about its centre.
    public var angle: Double
    public var scale: Double
    /// sRGB, each component clamped to 0…1.
    public var color: Color
}

/// `EmitterLayer`'s values, carried to the render tree, where the renderer draws the particles of
/// the moment it renders as instances of the cells' images.
public struct EmitterProperties: Sendable, Hashable {
    public var emitterCells: [EmitterCell] = []
    /// Multiply the cells' values.
    public var birthRate = 1.0
    public var lifetime = 1.0
    public var velocity = 1.0
    public var scale = 1.0
    public var spin = 1.0
    /// Picks the particles' random values: the same seed gives the same particles at the same time.
    public var seed: UInt32 = 0
    public var emitterPosition = Point.zero
    public var emitterSize = Size.zero
    public var emitterShape = EmitterShape.point
    public var emitterMode = EmitterMode.volume
    public var renderMode = EmitterRenderMode.unordered
    /// The birth rates in force before the last change of the layer's or a cell's rate, oldest
    /// first, and those explicit animations of a rate give from the commit that started them on
    /// (`BirthRateSegment.curve`, reaching into the future); the current rates apply from the last
    /// segment's end (from 0 when there is none). `EmitterLayer` records a segment when a rate
    /// changes, so particles already born keep their birth times and only later births follow the new rate.
    public internal(set) var birthRateHistory: [BirthRateSegment] = []

    public init() {}

    /// The particles per second of each cell now: the cell's rate times the layer's (0 while disabled).
    var cellRates: [Double] { emitterCells.map { $0.isEnabled ? $0.birthRate * birthRate : 0 } }

    /// The longest any particle of the current cells, or a descendant of one, lives after its birth.
    private var longestLifetime: Double {
        emitterCells.map(span(of:)).max() ?? 0
    }

    /// Ends the rates `previousRates` at local time `time`, from when the current ones apply.
    /// Before emission starts (or when time has gone back past the last change) there is nothing
    /// to keep, so the current rates take over from the last change. Segments whose particles are
    /// all dead by `time` are dropped, save the last, which places the current rates' births.
    mutating func recordBirthRateChange(from previousRates: [Double], at time: Double) {
        let rates = cellRates
        // A cell added since emits as though it always had, as a cell set before any change does.
        func carriedBack(_ segment: BirthRateSegment) -> BirthRateSegment {
            var s = segment
            for c in s.rates.count..<max(s.rates.count, rates.count) {
                s.birthsBefore.append(rates[c] * s.start)
                s.rates.append(rates[c])
            }
            return s
        }
        birthRateHistory = birthRateHistory.map(carriedBack)
        let start = birthRateHistory.last?.end ?? 0
        let born = birthRateHistory.last?.birthsAfter ?? previousRates.map { _ in 0 }
        guard zip(previousRates, rates).contains(where: !=), time > start, time.isFinite else { return }
        birthRateHistory.append(carriedBack(BirthRateSegment(start: start, end: time, birthsBefore: born, rates: previousRates)))
        dropDeadSegments(at: time)
    }

    /// Drops the segments whose particles are all dead by `time`, save the last.
    mutating func dropDeadSegments(at time: Double) {
        let longest = longestLifetime
        while birthRateHistory.count > 1, birthRateHistory[0].end + longest <= time {
            birthRateHistory.removeFirst()
        }
    }

    /// When the current rates began, and how many particles each cell had made by then.
    private var currentSegmentStart: (start: Double, birthsBefore: [Double]) {
        guard let last = birthRateHistory.last else { return (0, []) }
        return (last.end, last.birthsAfter)
    }

    /// The particles alive at `time` seconds of the layer's local time, in drawing order.
    ///
    /// Emission starts at local time 0 (set the layer's beginTime to start it later). A cell's
    /// particle i is born when the cell's births so far reach i: at i / rate seconds while the rate
    /// has not changed, within each segment of `birthRateHistory` at its start plus the births
    /// still to come over that segment's rate, and over a segment an animation varied where the
    /// integral of its rate reaches i (`BirthRateCurve`). A particle lives while its age is below its
    /// lifetime. Its random values come from a hash of (seed, cell, i) alone, so any moment is
    /// computed directly, without stepping through the ones before, and is the same on every run.
    /// Each cell's particles come before those its particles emitted (see `emitDescendants`).
    public func particles(atTime time: Double) -> [Particle] {
        var result: [Particle] = []
        let (now, bornBeforeNow) = currentSegmentStart
        let rates = cellRates
        for (c, cell) in emitterCells.enumerated() where cell.isEnabled && time >= 0 {
            // How long after its birth a particle or one of its descendants may still live.
            let longest = span(of: cell)
            guard longest > 0, cell.contents != nil || !cell.emitterCells.isEmpty else { continue }
            var descendants: [Particle] = []
            let current = BirthRateSegment(start: now, end: .infinity, birthsBefore: bornBeforeNow, rates: rates)
            for segment in birthRateHistory + [current]
            where segment.emits(c) && segment.start <= time && segment.end > time - longest {
                // The births of [max(start, time − longest), min(end, time)]; `particle` drops the
                // ones outside their lifetime.
                let (start, end, before) = (segment.start, segment.end, segment.birthsBefore.at(c))
                let first = max(before.rounded(.up), segment.births(c, at: max(start, time - longest)).rounded(.down))
                var last = segment.births(c, at: time).rounded(.down)
                if end <= time { last = min(last, segment.births(c, at: end).rounded(.up) - 1) }
                guard first <= last else { continue }
                for i in Int(first)...Int(last) {
                    let born = segment.birthTime(c, of: Double(i))
                    let random = ParticleRandom(seed: seed, cell: c, particle: i)
                    let (particle, life) = state(
                        i, of: cell, path: [c], random: random, parent: nil, born: born, time: time)
                    if particle.age >= 0, particle.age < life, cell.contents != nil { result.append(particle) }
                    guard !cell.emitterCells.isEmpty else { continue }
                    emitDescendants(
                        of: cell, parent: (i, born, life, [c], c, i),
                        at: { state(i, of: cell, path: [c], random: random, parent: nil, born: born, time: $0).particle },
                        time: time, into: &descendants)
                }
            }
            result += descendants
        }
        switch renderMode {
        case .unordered, .additive: return result
        case .oldestFirst: return stableSorted(result) { $0.birthTime < $1.birthTime }
        case .oldestLast: return stableSorted(result) { $0.birthTime > $1.birthTime }
        }
    }

    private func stableSorted(_ particles: [Particle], by earlier: (Particle, Particle) -> Bool) -> [Particle] {
        particles.enumerated().sorted { a, b in
            earlier(a.element, b.element) ? true : earlier(b.element, a.element) ? false : a.offset < b.offset
        }.map(\.element)
    }

    /// Particle `i` of `cell` at `time`, alive or not (it is alive while its age is in
    /// 0..<life), and its lifetime. A sub-cell's particle starts at its parent's position
    /// (`parent`, as the parent was at its birth) and its emission direction turns with the
    /// parent's angle. The random values are drawn in a fixed order whatever the ranges, so
    /// changing one range leaves the others' draws alone.
    func state(
        _ i: Int, of cell: EmitterCell, path: [Int], random: ParticleRandom, parent: (index: Int, at: Particle)?,
        born: Double, time: Double
    ) -> (particle: Particle, life: Double) {
        var random = random
        let age = time - born
        let life = (cell.lifetime + random.centred(cell.lifetimeRange)) * lifetime
        let shapePoint = emissionPoint(&random)
        let origin = parent?.at.position ?? shapePoint
        let speed = (cell.velocity + random.centred(cell.velocityRange)) * velocity * cos(cell.emissionLatitude)
        let direction = cell.emissionLongitude + random.centred(cell.emissionRange) + (parent?.at.angle ?? 0)
        let spinRate = (cell.spin + random.centred(cell.spinRange)) * spin
        let startScale = (cell.scale + random.centred(cell.scaleRange)) * scale
        let start = cell.color.converted(to: .sRGB)
        let red = start.red + random.centred(cell.redRange), green = start.green + random.centred(cell.greenRange)
        let blue = start.blue + random.centred(cell.blueRange), alpha = start.alpha + random.centred(cell.alphaRange)
        func clamped(_ v: Double) -> Double { min(1, max(0, v)) }
        let particle = Particle(
            cellIndex: path[0], index: i, cellPath: path, parentIndex: parent?.index, birthTime: born, age: age,
            position: Point(
                x: origin.x + speed * cos(direction) * age + cell.xAcceleration * age * age / 2,
                y: origin.y + speed * sin(direction) * age + cell.yAcceleration * age * age / 2),
            angle: spinRate * age, scale: max(0, startScale + cell.scaleSpeed * age),
            color: Color(
                red: clamped(red + cell.redSpeed * age), green: clamped(green + cell.greenSpeed * age),
                blue: clamped(blue + cell.blueSpeed * age), alpha: clamped(alpha + cell.alphaSpeed * age)))
        return (particle, life)
    }

    /// Where a particle starts: a point of the emitter's shape (or its outline), uniformly.
    private func emissionPoint(_ random: inout ParticleRandom) -> Point {
        let (u, v) = (random.next(), random.next())
        let (cx, cy) = (emitterPosition.x, emitterPosition.y)
        let (w, h) = (emitterSize.width, emitterSize.height)
        switch emitterShape {
        case .point:
            return emitterPosition
        case .line:
            return Point(x: cx + (u - 0.5) * w, y: cy)
        case .rectangle where emitterMode == .outline:
            // Along the perimeter from the top left corner, clockwise.
            var s = u * 2 * (w + h)
            let (x0, y0) = (cx - w / 2, cy - h / 2)
            if s < w { return Point(x: x0 + s, y: y0) }
            s -= w
            if s < h { return Point(x: x0 + w, y: y0 + s) }
            s -= h
            if s < w { return Point(x: x0 + w - s, y: y0 + h) }
            return Point(x: x0, y: y0 + h - (s - w))
        case .rectangle:
            return Point(x: cx + (u - 0.5) * w, y: cy + (v - 0.5) * h)
        case .circle:
            let r = w / 2 * (emitterMode == .outline ? 1 : v.squareRoot())
            return Point(x: cx + r * cos(2 * .pi * u), y: cy + r * sin(2 * .pi * u))
        }
    }

    /// The box the particles alive at `time` cover in the bounds space (null when none).
    public func drawingBounds(atTime time: Double) -> Rect {
        var box = Rect.null
        for particle in particles(atTime: time) {
            guard let size = particleSize(of: cell(of: particle)) else { continue }
            // Turned about its centre, the image stays within the circle through its corners.
            let r = (size.width * size.width + size.height * size.height).squareRoot() / 2 * particle.scale
            box = box.union(Rect(x: particle.position.x - r, y: particle.position.y - r, width: 2 * r, height: 2 * r))
        }
        return box
    }

    /// A cell's image size in points at scale 1: the part contentsRect selects, over contentsScale.
    public func particleSize(of cell: EmitterCell) -> Size? {
        guard let image = cell.contents else { return nil }
        let s = cell.contentsScale > 0 ? cell.contentsScale : 1
        return Size(width: Double(image.width) * cell.contentsRect.width / s, height: Double(image.height) * cell.contentsRect.height / s)
    }
}

/// A span of local time over which an emitter's birth rates stayed the same.
public struct BirthRateSegment: Sendable, Hashable {
    public var start: Double
    public var end: Double
    /// Per cell, the particles born before `start` (a fraction carries the next birth's timing on).
    public var birthsBefore: [Double]
    /// Per cell, particles per second (the cell's rate times the layer's); at the start where `curve` varies them.
    public var rates: [Double]
    /// The rates an explicit animation gave over the segment, for the cells it covers (see
    /// `EmitterLayer.rescheduleBirths(atLocalTime:)`); nil while they stayed the same.
    public var curve: BirthRateCurve? = nil

    /// Per cell, the particles born before `end`.
    var birthsAfter: [Double] {
        (0..<max(birthsBefore.count, rates.count)).map { end.isFinite ? births($0, at: end) : .infinity }
    }
}

extension [Double] {
    /// The value for cell `i`, 0 for a cell the list does not reach (one added since).
    func at(_ i: Int) -> Double { i < count ? self[i] : 0 }
}

/// SplitMix64 over a key made of the seed, the cell and the particle: the same key gives the
/// same sequence, and neighbouring keys give unrelated ones.
struct ParticleRandom {
    private var state: UInt64

    init(seed: UInt32, cell: Int, particle: Int) {
        state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: cell) &* 0xBF58_476D_1CE4_E5B9
            ^ UInt64(truncatingIfNeeded: particle) &* 0x94D0_49BB_1331_11EB
    }

    /// Uniform in 0..<1, from the top 53 bits.
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    /// Uniform in [−range/2, range/2).
    mutating func centred(_ range: Double) -> Double { (next() - 0.5) * range }
}

/// A layer that emits particles (CAEmitterLayer): each of its cells makes particles at its birth
/// rate, which move, turn, scale and change colour over their lifetime. The particles are not
/// layers: the renderer computes those alive at the moment it draws (see
/// `EmitterProperties.particles(atTime:)`) and draws them as instances of their cells' images,
/// above the layer's contents and below its sublayers. An emitter counts as animated, so every
/// frame is drawn anew.
open class EmitterLayer: Layer {
    public override init() {
        super.init()
        properties.emitter = EmitterProperties()
    }

    public required init(layer: Layer) {
        super.init(layer: layer)
    }

    override class var defaultProperties: LayerProperties {
        var p = LayerProperties()
        p.emitter = EmitterProperties()
        return p
    }

    override class func propertyEntry(forKey key: String) -> LayerKeyTable.Entry? {
        emitterEntries[key] ?? super.propertyEntry(forKey: key)
    }

    override class var implicitlyAnimatedKeys: Set<String> { emitterAnimatedKeys }

    /// The ones CAEmitterLayer.h marks animatable, but for birthRate: a new rate acts on births
    /// from the moment it is set (the living particles keep theirs), so that `birthRate = 0` stops
    /// an emitter then rather than after a fade. Explicit animations of it (the layer's, or a
    /// cell's by `emitterCells.<name>.birthRate`) are integrated: see `rescheduleBirths(atLocalTime:)`.
    private static let emitterAnimatedKeys = Layer.baseImplicitlyAnimatedKeys.union([
        "lifetime", "velocity", "scale", "spin", "emitterPosition", "emitterSize",
    ])

    private static let emitterEntries: [String: LayerKeyTable.Entry] = [
        "emitterCells": LayerKeyTable.entry({ $0.emitter?.emitterCells }, \EmitterLayer.emitterCells),
        "birthRate": LayerKeyTable.entry({ $0.emitter?.birthRate }, \EmitterLayer.birthRate),
        "lifetime": LayerKeyTable.entry({ $0.emitter?.lifetime }, \EmitterLayer.lifetime),
        "velocity": LayerKeyTable.entry({ $0.emitter?.velocity }, \EmitterLayer.velocity),
        "scale": LayerKeyTable.entry({ $0.emitter?.scale }, \EmitterLayer.scale),
        "spin": LayerKeyTable.entry({ $0.emitter?.spin }, \EmitterLayer.spin),
        "seed": LayerKeyTable.entry({ $0.emitter?.seed }, \EmitterLayer.seed),
        "emitterPosition": LayerKeyTable.entry({ $0.emitter?.emitterPosition }, \EmitterLayer.emitterPosition),
        "emitterSize": LayerKeyTable.entry({ $0.emitter?.emitterSize }, \EmitterLayer.emitterSize),
        "emitterShape": LayerKeyTable.entry({ $0.emitter?.emitterShape }, \EmitterLayer.emitterShape),
        "emitterMode": LayerKeyTable.entry({ $0.emitter?.emitterMode }, \EmitterLayer.emitterMode),
        "renderMode": LayerKeyTable.entry({ $0.emitter?.renderMode }, \EmitterLayer.renderMode),
    ]

    private var values: EmitterProperties { properties.emitter ?? EmitterProperties() }

    public var emitterCells: [EmitterCell] {
        get { values.emitterCells }
        set { changingBirthRates { setProperty(\.emitter!.emitterCells, newValue, key: "emitterCells") } }
    }
    public var birthRate: Double {
        get { values.birthRate }
        set { changingBirthRates { setProperty(\.emitter!.birthRate, newValue, key: "birthRate") } }
    }

    /// Runs `change` and, when it changes a cell's effective rate, keeps the births so far at the
    /// rates before it, as of the layer's local time now (Core Animation lets the particles already
    /// emitted live on; only later births follow the new rate).
    private func changingBirthRates(_ change: () -> Void) {
        let before = values.cellRates
        change()
        guard values.cellRates != before else { return }
        let now = convertTime(MediaTime.now, from: nil)
        properties.emitter?.recordBirthRateChange(from: before, at: now)
        // An animated rate scales or replaces the new model values from now on: tabulate it again.
        birthRateAnimationsChanged(animationEntries, atMediaTime: MediaTime.now)
    }
    public var lifetime: Double {
        get { values.lifetime }
        set { setProperty(\.emitter!.lifetime, newValue, key: "lifetime") }
    }
    public var velocity: Double {
        get { values.velocity }
        set { setProperty(\.emitter!.velocity, newValue, key: "velocity") }
    }
    public var scale: Double {
        get { values.scale }
        set { setProperty(\.emitter!.scale, newValue, key: "scale") }
    }
    public var spin: Double {
        get { values.spin }
        set { setProperty(\.emitter!.spin, newValue, key: "spin") }
    }
    public var seed: UInt32 {
        get { values.seed }
        set { setProperty(\.emitter!.seed, newValue, key: "seed") }
    }
    public var emitterPosition: Point {
        get { values.emitterPosition }
        set { setProperty(\.emitter!.emitterPosition, newValue, key: "emitterPosition") }
    }
    public var emitterSize: Size {
        get { values.emitterSize }
        set { setProperty(\.emitter!.emitterSize, newValue, key: "emitterSize") }
    }
    public var emitterShape: EmitterShape {
        get { values.emitterShape }
        set { setProperty(\.emitter!.emitterShape, newValue, key: "emitterShape") }
    }
    public var emitterMode: EmitterMode {
        get { values.emitterMode }
        set { setProperty(\.emitter!.emitterMode, newValue, key: "emitterMode") }
    }
    public var renderMode: EmitterRenderMode {
        get { values.renderMode }
        set { setProperty(\.emitter!.renderMode, newValue, key: "renderMode") }
    }
}
