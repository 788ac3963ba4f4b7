/// The renderer's shaders as SPIR-V words. ShaderLibraryPlugin compiles each shader in `Shaders/`
/// with glslc at build time and adds it here as a static array (`layerVertex`, `layerFragment`,
/// `patternVertex`, `patternFragment`).
enum ShaderLibrary {}
