@_exported import Graphics
