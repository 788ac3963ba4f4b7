import Testing
import WaylandServer
import WaylandTestClient

/// The placement function against WLCS's XdgPopupPositionerTest tables (a 400×500 window, a 60×40
/// popup, the anchor rectangle the whole window unless stated), then constraint adjustments.
@Suite struct XdgPositionerGeometryTests {
    typealias Rules = XdgPositionerRules
    private static let windowWidth: Int32 = 400, windowHeight: Int32 = 500
    private static let popupWidth: Int32 = 60, popupHeight: Int32 = 40
    /// WLCS's window sits at (500, 500) on a large output: nothing constrains the popup.
    private static let output = IntRect(x: -500, y: -500, width: 4000, height: 4000)

    private static func rules(anchorRect: IntRect = IntRect(x: 0, y: 0, width: windowWidth, height: windowHeight),
                              anchor: Rules.Direction = .none, gravity: Rules.Direction = .none) -> Rules {
        Rules(size: SurfaceSize(width: popupWidth, height: popupHeight), anchorRect: anchorRect, anchor: anchor, gravity: gravity)
    }

    private static func position(_ rules: Rules) -> (Int32, Int32) {
        let geometry = rules.geometry(constrainedTo: output)
        #expect(geometry.width == rules.size.width && geometry.height == rules.size.height)
        return (geometry.x, geometry.y)
    }

    @Test func defaultValuesCentreThePopupOnTheAnchorRectangle() {
        let (x, y) = Self.position(Self.rules())
        #expect(x == (Self.windowWidth - Self.popupWidth) / 2 && y == (Self.windowHeight - Self.popupHeight) / 2)
        #expect(Self.rules().unconstrainedGeometry == IntRect(x: 170, y: 230, width: 60, height: 40))
    }

    static let anchorCases: [(Rules.Direction, Int32, Int32)] = [
        (.left, -popupWidth / 2, (windowHeight - popupHeight) / 2),
        (.right, windowWidth - popupWidth / 2, (windowHeight - popupHeight) / 2),
        (.top, (windowWidth - popupWidth) / 2, -popupHeight / 2),
        (.bottom, (windowWidth - popupWidth) / 2, windowHeight - popupHeight / 2),
        (.topLeft, -popupWidth / 2, -popupHeight / 2),
        (.topRight, windowWidth - popupWidth / 2, -popupHeight / 2),
        (.bottomLeft, -popupWidth / 2, windowHeight - popupHeight / 2),
        (.bottomRight, windowWidth - popupWidth / 2, windowHeight - popupHeight / 2),
    ]

    @Test(arguments: anchorCases)
    func anchorPlacesTheAnchorPoint(anchor: Rules.Direction, x: Int32, y: Int32) {
        let (placedX, placedY) = Self.position(Self.rules(anchor: anchor))
        #expect(placedX == x && placedY == y)
    }

    static let gravityCases: [(Rules.Direction, Int32, Int32)] = [
        (.none, (windowWidth - popupWidth) / 2, (windowHeight - popupHeight) / 2),
        (.left, windowWidth / 2 - popupWidth, (windowHeight - popupHeight) / 2),
        (.right, windowWidth / 2, (windowHeight - popupHeight) / 2),
        (.top, (windowWidth - popupWidth) / 2, windowHeight / 2 - popupHeight),
        (.bottom, (windowWidth - popupWidth) / 2, windowHeight / 2),
        (.topLeft, windowWidth / 2 - popupWidth, windowHeight / 2 - popupHeight),
        (.topRight, windowWidth / 2, windowHeight / 2 - popupHeight),
        (.bottomLeft, windowWidth / 2 - popupWidth, windowHeight / 2),
        (.bottomRight, windowWidth / 2, windowHeight / 2),
    ]

    @Test(arguments: gravityCases)
    func gravityPlacesThePopupOnItsSideOfTheAnchorPoint(gravity: Rules.Direction, x: Int32, y: Int32) {
        let (placedX, placedY) = Self.position(Self.rules(gravity: gravity))
        #expect(placedX == x && placedY == y)
    }

    static let anchorRectCases: [(IntRect, Int32, Int32)] = [
        (IntRect(x: 0, y: 0, width: windowWidth, height: windowHeight),
         (windowWidth - popupWidth) / 2, (windowHeight - popupHeight) / 2),
        (IntRect(x: 0, y: 0, width: windowWidth - 40, height: windowHeight - 30),
         (windowWidth - 40 - popupWidth) / 2, (windowHeight - 30 - popupHeight) / 2),
        (IntRect(x: 40, y: 0, width: windowWidth - 40, height: windowHeight - 30),
         (windowWidth + 40 - popupWidth) / 2, (windowHeight - 30 - popupHeight) / 2),
        (IntRect(x: 0, y: 30, width: windowWidth - 40, height: windowHeight - 30),
         (windowWidth - 40 - popupWidth) / 2, (windowHeight + 30 - popupHeight) / 2),
        (IntRect(x: 40, y: 30, width: windowWidth - 40, height: windowHeight - 30),
         (windowWidth + 40 - popupWidth) / 2, (windowHeight + 30 - popupHeight) / 2),
        (IntRect(x: 20, y: 20, width: windowWidth - 80, height: windowHeight - 120),
         (windowWidth - 40 - popupWidth) / 2, (windowHeight - 80 - popupHeight) / 2),
        // WLCS's zero_size_anchor_rect: a point anchor.
        (IntRect(x: windowWidth / 2, y: windowHeight / 2, width: 0, height: 0),
         (windowWidth - popupWidth) / 2, (windowHeight - popupHeight) / 2),
    ]

    @Test(arguments: anchorRectCases)
    func anchorRectangleMovesTheAnchorPoint(anchorRect: IntRect, x: Int32, y: Int32) {
        let (placedX, placedY) = Self.position(Self.rules(anchorRect: anchorRect))
        #expect(placedX == x && placedY == y)
    }

    @Test func theOffsetMovesThePopupAfterAnchorAndGravity() {
        var rules = Self.rules(anchor: .bottomRight, gravity: .bottomRight)
        rules.offsetX = -5
        rules.offsetY = 7
        #expect(rules.unconstrainedGeometry == IntRect(x: 395, y: 507, width: 60, height: 40))
    }

    // Constraint adjustments: a 100×50 menu anchored to a 20×10 button, inside a 300×200 area.

    private static let area = IntRect(x: 0, y: 0, width: 300, height: 200)

    private static func menu(button: IntRect, anchor: Rules.Direction = .bottomLeft, gravity: Rules.Direction = .bottomRight,
                             adjustment: Rules.ConstraintAdjustment, offsetX: Int32 = 0, offsetY: Int32 = 0) -> Rules {
        Rules(size: SurfaceSize(width: 100, height: 50), anchorRect: button, anchor: anchor, gravity: gravity,
              constraintAdjustment: adjustment, offsetX: offsetX, offsetY: offsetY)
    }

    static let adjustmentCases: [(String, Rules, IntRect)] = [
        ("fits: unchanged", menu(button: IntRect(x: 10, y: 10, width: 20, height: 10), adjustment: .all),
         IntRect(x: 10, y: 20, width: 100, height: 50)),
        ("no adjustment: stays out", menu(button: IntRect(x: 250, y: 170, width: 20, height: 10), adjustment: []),
         IntRect(x: 250, y: 180, width: 100, height: 50)),
        ("flip x", menu(button: IntRect(x: 250, y: 10, width: 20, height: 10), anchor: .bottomRight, gravity: .bottomRight, adjustment: .flipX),
         IntRect(x: 150, y: 20, width: 100, height: 50)),
        ("flip y", menu(button: IntRect(x: 10, y: 170, width: 20, height: 10), adjustment: .flipY),
         IntRect(x: 10, y: 120, width: 100, height: 50)),
        ("flip y keeps the offset", menu(button: IntRect(x: 10, y: 170, width: 20, height: 10), adjustment: .flipY, offsetY: 4),
         IntRect(x: 10, y: 124, width: 100, height: 50)),
        ("flip x that does not fit is undone", menu(button: IntRect(x: 10, y: 10, width: 280, height: 10), anchor: .bottomRight, gravity: .bottomRight, adjustment: .flipX),
         IntRect(x: 290, y: 20, width: 100, height: 50)),
        ("flip only on the constrained axis", menu(button: IntRect(x: 250, y: 10, width: 20, height: 10), adjustment: [.flipX, .flipY]),
         IntRect(x: 170, y: 20, width: 100, height: 50)),
        ("slide x back from the right edge", menu(button: IntRect(x: 250, y: 10, width: 20, height: 10), adjustment: .slideX),
         IntRect(x: 200, y: 20, width: 100, height: 50)),
        ("slide x in from the left edge", menu(button: IntRect(x: 20, y: 10, width: 20, height: 10), anchor: .bottomLeft, gravity: .bottomLeft, adjustment: .slideX),
         IntRect(x: 0, y: 20, width: 100, height: 50)),
        ("slide y up from the bottom edge", menu(button: IntRect(x: 10, y: 170, width: 20, height: 10), adjustment: .slideY),
         IntRect(x: 10, y: 150, width: 100, height: 50)),
        ("flip before slide", menu(button: IntRect(x: 10, y: 170, width: 20, height: 10), adjustment: [.flipY, .slideY]),
         IntRect(x: 10, y: 120, width: 100, height: 50)),
        ("slide when the flip does not fit", menu(button: IntRect(x: 10, y: 40, width: 20, height: 150), adjustment: [.flipY, .slideY]),
         IntRect(x: 10, y: 150, width: 100, height: 50)),
        ("resize x clips at the right edge", menu(button: IntRect(x: 250, y: 10, width: 20, height: 10), adjustment: .resizeX),
         IntRect(x: 250, y: 20, width: 50, height: 50)),
        ("resize y clips at the bottom edge", menu(button: IntRect(x: 10, y: 170, width: 20, height: 10), adjustment: .resizeY),
         IntRect(x: 10, y: 180, width: 100, height: 20)),
        ("slide before resize", menu(button: IntRect(x: 250, y: 170, width: 20, height: 10), adjustment: [.slideX, .resizeY]),
         IntRect(x: 200, y: 180, width: 100, height: 20)),
        ("resize cannot bring back a popup wholly outside", menu(button: IntRect(x: 320, y: 10, width: 20, height: 10), adjustment: .resizeX),
         IntRect(x: 320, y: 20, width: 100, height: 50)),
    ]

    @Test(arguments: adjustmentCases)
    func constraintAdjustments(name: String, rules: Rules, expected: IntRect) {
        #expect(rules.geometry(constrainedTo: Self.area) == expected, "\(name)")
    }

    /// A 400×300 popup in the 300×200 area with both edges out on each axis.
    static let oversizeCases: [(IntRect, Rules.Direction, IntRect)] = [
        (IntRect(x: 140, y: 90, width: 20, height: 20), .none, IntRect(x: 0, y: 0, width: 400, height: 300)),
        (IntRect(x: 340, y: 240, width: 20, height: 20), .topLeft, IntRect(x: -100, y: -100, width: 400, height: 300)),
        (IntRect(x: -60, y: -60, width: 20, height: 20), .bottomRight, IntRect(x: 0, y: 0, width: 400, height: 300)),
    ]

    @Test(arguments: oversizeCases)
    func aPopupLargerThanTheAreaSlidesToTheEdgeItGrowsFrom(anchorRect: IntRect, gravity: Rules.Direction, expected: IntRect) {
        let rules = Rules(size: SurfaceSize(width: 400, height: 300), anchorRect: anchorRect,
                          gravity: gravity, constraintAdjustment: [.slideX, .slideY])
        #expect(rules.geometry(constrainedTo: Self.area) == expected)
    }

    @Test func aPopupLargerThanTheAreaIsClippedAfterSliding() {
        let rules = Rules(size: SurfaceSize(width: 400, height: 300), anchorRect: IntRect(x: 100, y: 80, width: 20, height: 20),
                          anchor: .bottomLeft, gravity: .bottomRight, constraintAdjustment: .all)
        #expect(rules.geometry(constrainedTo: Self.area) == IntRect(x: 0, y: 0, width: 300, height: 200))
    }

    @Test func anEmptyConstraintLeavesThePopupWhereTheRulesPutIt() {
        let rules = Self.menu(button: IntRect(x: 250, y: 170, width: 20, height: 10), adjustment: .all)
        #expect(rules.geometry(constrainedTo: IntRect(x: 0, y: 0, width: 0, height: 0)) == rules.unconstrainedGeometry)
    }
}

@Suite struct XdgPositionerProtocolTests {
    @Test func theRulesAreCopiedIntoThePopup() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let positioner = try harness.makePositioner(width: 30, height: 20, anchorRect: IntRect(x: 5, y: 6, width: 7, height: 8),
                                                    anchor: .bottomRight, gravity: .bottom, constraintAdjustment: 9)
        try positioner.setOffset(x: -3, y: 4)
        try positioner.setReactive()
        try positioner.setParentSize(parentWidth: 640, parentHeight: 480)
        try positioner.setParentConfigure(serial: 77)
        let popup = try harness.makePopup(parent: parent.xdgSurface, positioner: positioner)
        try positioner.setSize(width: 99, height: 99)
        try harness.client.roundtrip()
        #expect(popup.server.positioner == XdgPositionerRules(
            size: SurfaceSize(width: 30, height: 20), anchorRect: IntRect(x: 5, y: 6, width: 7, height: 8),
            anchor: .bottomRight, gravity: .bottom, constraintAdjustment: [.slideX, .flipY], offsetX: -3, offsetY: 4,
            isReactive: true, parentSize: SurfaceSize(width: 640, height: 480), parentConfigureSerial: 77))
    }

    @Test(arguments: [(Int32(0), Int32(10)), (10, 0), (-1, 10)])
    func aNonPositiveSizeIsInvalidInput(width: Int32, height: Int32) throws {
        let harness = try XdgHarness()
        let positioner = try harness.wmBase.createPositioner()
        try positioner.setSize(width: width, height: height)
        harness.expectError(XdgPositionerError.invalidInput, on: positioner)
    }

    @Test func aNegativeAnchorRectangleSizeIsInvalidInput() throws {
        let harness = try XdgHarness()
        let positioner = try harness.wmBase.createPositioner()
        try positioner.setAnchorRect(x: 0, y: 0, width: 10, height: -1)
        harness.expectError(XdgPositionerError.invalidInput, on: positioner)
    }

    @Test func aZeroSizedAnchorRectangleIsAccepted() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let positioner = try harness.makePositioner(anchorRect: IntRect(x: 50, y: 50, width: 0, height: 0))
        let popup = try harness.makeMappedPopup(parent: parent.xdgSurface, positioner: positioner)
        #expect(popup.popup.events.first == .configure(x: 20, y: 30, width: 60, height: 40))
    }

    @Test(arguments: ["anchor", "gravity"])
    func anUnknownAnchorOrGravityIsInvalidInput(rule: String) throws {
        let harness = try XdgHarness()
        let positioner = try harness.wmBase.createPositioner()
        if rule == "anchor" {
            try positioner.setAnchor(anchor: XdgPositionerAnchor(rawValue: 9))
        } else {
            try positioner.setGravity(gravity: XdgPositionerGravity(rawValue: 9))
        }
        harness.expectError(XdgPositionerError.invalidInput, on: positioner)
    }

    @Test func unknownConstraintAdjustmentBitsAreInvalidInput() throws {
        let harness = try XdgHarness()
        let positioner = try harness.wmBase.createPositioner()
        try positioner.setConstraintAdjustment(constraintAdjustment: constraintAdjustmentArgument(64))
        harness.expectError(XdgPositionerError.invalidInput, on: positioner)
    }

    @Test(arguments: [false, true])
    func anIncompletePositionerIsInvalidPositioner(hasSize: Bool) throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let positioner = try harness.wmBase.createPositioner()
        if hasSize {
            try positioner.setSize(width: 10, height: 10)
        } else {
            try positioner.setAnchorRect(x: 0, y: 0, width: 10, height: 10)
        }
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.getXdgSurface(surface: surface)
        try xdgSurface.getPopup(parent: parent.xdgSurface, positioner: positioner)
        harness.expectError(XdgWmBaseError.invalidPositioner, on: harness.wmBase)
    }
}
