extension EmitterProperties {
    /// The cell that made `particle` (found through its `cellPath`).
    public func cell(of particle: Particle) -> EmitterCell {
        var cell = emitterCells[particle.cellPath[0]]
        for s in particle.cellPath.dropFirst() { cell = cell.emitterCells[s] }
        return cell
    }

    /// How long after a particle of `cell` is born it or one of its descendants may still be
    /// alive: its longest lifetime, plus the longest span of its sub-cells (a sub-particle born as
    /// its parent dies lives on for its own lifetime).
    func span(of cell: EmitterCell) -> Double {
        let own = max(0, (cell.lifetime + abs(cell.lifetimeRange) / 2) * lifetime)
        let children = cell.emitterCells.filter { $0.isEnabled && $0.birthRate > 0 && $0.birthRate.isFinite }
        return own + (children.map(span(of:)).max() ?? 0)
    }

    /// Appends the particles alive at `time` that a particle of `cell` emitted, and theirs,
    /// sub-cell by sub-cell. `parent` is that particle's index, birth time, lifetime and keys,
    /// and `at` gives its state at any time.
    ///
    /// As a CAEmitterCell's sub-cells: each enabled sub-cell emits from the parent particle at its
    /// own birthRate (the layer's birthRate scales only the emitter's own cells) over the parent's
    /// lifetime, sub-particle j at j / birthRate seconds of the parent's age, from where the
    /// parent is at that moment, its direction turned by the parent's angle then; the
    /// sub-particles live their own lifetime, after the parent's death too. The layer's lifetime,
    /// velocity, scale and spin multiply the sub-cells' values as the cells'. Their random values
    /// come from keys mixed from the parent's keys and the sub-cell's and sub-particle's indices,
    /// so any moment is still computed directly and is the same on every run.
    func emitDescendants(
        of cell: EmitterCell, parent: (index: Int, born: Double, life: Double, path: [Int], cellKey: Int, particleKey: Int),
        at parentAt: (Double) -> Particle, time: Double, into found: inout [Particle]
    ) {
        guard parent.life > 0 else { return }
        for (s, sub) in cell.emitterCells.enumerated() where sub.isEnabled {
            let rate = sub.birthRate
            let longest = span(of: sub)
            guard rate > 0, rate.isFinite, longest > 0, sub.contents != nil || !sub.emitterCells.isEmpty else { continue }
            // The births over the parent's life whose span reaches `time`.
            let first = max(0, ((time - longest - parent.born) * rate).rounded(.down))
            let last = min(((time - parent.born) * rate).rounded(.down), (parent.life * rate).rounded(.up) - 1)
            guard first <= last else { continue }
            let cellKey = Self.mixedKey(parent.cellKey, s)
            let path = parent.path + [s]
            for j in Int(first)...Int(last) {
                let birth = parent.born + Double(j) / rate
                guard birth <= time, birth - parent.born < parent.life else { break }
                let origin = parentAt(birth)
                let particleKey = Self.mixedKey(parent.particleKey, j)
                let random = ParticleRandom(seed: seed, cell: cellKey, particle: particleKey)
                func at(_ t: Double) -> (particle: Particle, life: Double) {
                    state(j, of: sub, path: path, random: random, parent: (parent.index, origin), born: birth, time: t)
                }
                let (particle, life) = at(time)
                if particle.age < life, sub.contents != nil { found.append(particle) }
                emitDescendants(
                    of: sub, parent: (j, birth, life, path, cellKey, particleKey), at: { at($0).particle }, time: time,
                    into: &found)
            }
        }
    }

    /// A key for a sub-cell or sub-particle from its parent's and its index (SplitMix64's
    /// finaliser): far from the small keys of the emitter's own cells and particles.
    static func mixedKey(_ parent: Int, _ index: Int) -> Int {
        var z = UInt64(truncatingIfNeeded: parent) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: index &+ 1)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: z ^ (z >> 31))
    }
}
