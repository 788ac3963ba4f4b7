// LayerKit's API speaks in Graphics' value types (Point, Rect, Color, Image, Path), as
// Core Animation's speaks in CoreGraphics', so importing LayerKit brings them along.
@_exported import Graphics
