import LayerKit

/// The outputs' layout as the pointer sees it: each output is the rectangle its wl_output
/// announces (x, y and its logical size) in one global space of logical points, and the pointer
/// lives in that space, on the union of the rectangles. Relative motion crosses from one output to
/// the one beside it; a point off every output (past the layout's outer edge, or in a gap between
/// outputs) is pulled to the closest point of an output, as wlroots' output layout does. The
/// cursor is drawn by the output the pointer is on, and hidden by the others.
extension CompositorOutput {
    /// The output's place in the layout.
    var layoutRect: Rect {
        let state = global.state
        return Rect(x: Double(state.x), y: Double(state.y), width: Double(state.logicalWidth), height: Double(state.logicalHeight))
    }

    /// A layout point in the output's logical points.
    func localPoint(fromLayout point: Point) -> Point {
        let origin = layoutRect.origin
        return Point(x: point.x - origin.x, y: point.y - origin.y)
    }

    /// A point of the output's logical points in the layout.
    func layoutPoint(fromLocal point: Point) -> Point {
        let origin = layoutRect.origin
        return Point(x: point.x + origin.x, y: point.y + origin.y)
    }

    /// Whether the layout point `point` is on the output (its right and bottom edges excluded).
    func contains(layoutPoint point: Point) -> Bool {
        layoutRect.contains(point)
    }
}

extension Compositor {
    /// The output under the layout point `point` (the most important one where outputs overlap).
    func output(at point: Point) -> CompositorOutput? {
        outputs.first { $0.contains(layoutPoint: point) }
    }

    /// `point` where it is on an output, else the closest point of an output (on its last whole
    /// point at the right and bottom edges), with that output; nil with no output.
    func closestLayoutPoint(to point: Point) -> (point: Point, output: CompositorOutput)? {
        if let output = output(at: point) { return (point, output) }
        var best: (point: Point, output: CompositorOutput, distance: Double)?
        for output in outputs {
            let rect = output.layoutRect
            let clamped = Point(
                x: min(max(point.x, rect.minX), max(rect.minX, rect.maxX - 1)),
                y: min(max(point.y, rect.minY), max(rect.minY, rect.maxY - 1)))
            let distance = (clamped.x - point.x) * (clamped.x - point.x) + (clamped.y - point.y) * (clamped.y - point.y)
            if best.map({ distance < $0.distance }) ?? true { best = (clamped, output, distance) }
        }
        return best.map { ($0.point, $0.output) }
    }

    /// The layout's bounding box: where an absolute pointer mapped to no output ranges.
    var layoutBounds: Rect? {
        guard let first = outputs.first?.layoutRect else { return nil }
        return outputs.dropFirst().reduce(first) { $0.union($1.layoutRect) }
    }

    /// The output whose cursor shows the pointer (nil with no output).
    var pointerOutput: CompositorOutput? {
        outputs.first { $0.cursor.holdsPointer }
    }

    /// Puts the pointer at the layout point `point` (which must be on `output`) and its cursor on
    /// `output`, taken from the output that showed it.
    func placePointer(at point: Point, on output: CompositorOutput) {
        input.pointer = point
        let local = output.localPoint(fromLayout: point)
        if let holder = pointerOutput, holder !== output {
            holder.cursor.handOver(to: output.cursor, at: local)
        } else {
            output.cursor.holdPointer(at: local)
        }
    }

    /// An output was added or `removed` (already out of `outputs`): the pointer stays where it is
    /// when that is still on an output, else it goes to the closest point of an output (as wlroots'
    /// cursor does when its output leaves the layout), its cursor image with it; the first output
    /// after none takes the pointer in. Touches on a removed output's views end.
    func pointerOutputsChanged(removed: CompositorOutput? = nil) {
        if let removed { input.viewTouches = input.viewTouches.filter { $0.value !== removed } }
        let target = closestLayoutPoint(to: input.pointer)
        withoutAnimation {
            if let removed, removed.cursor.holdsPointer {
                // The display is gone: its cursor plane is no place to clear.
                removed.cursor.detachHardware()
                removed.cursor.handOver(to: target?.output.cursor, at: target.map { $0.output.localPoint(fromLayout: $0.point) } ?? .zero)
            }
            // Also where the outputs' places changed under a pointer that stays.
            if let (point, output) = target, point != input.pointer || pointerOutput !== output {
                placePointer(at: point, on: output)
            }
        }
    }
}
