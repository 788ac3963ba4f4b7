import GoldenImages

/// This target's goldens, in Golden/ beside this file.
let golden = GoldenImages(besideFile: #filePath)
