// Shared between layer.vert and layer.frag: one layer's draw, as LayerInstance in
// Sources/Renderer/LayerInstance.swift lays it out (std430; keep the two in step).

struct LayerInstance {
    mat4 transform;       // layer bounds space -> output pixels (row-vector matrix uploaded row by row)
    mat4 clipInverse;     // output pixels -> the clipping layer's bounds space (plane map in x, y, w)
    vec4 quad;            // the rectangle drawn, in bounds space: x, y, width, height
    vec4 bounds;          // the layer's bounds
    vec4 radii;           // corner radii: min-x/min-y, max-x/min-y, max-x/max-y, min-x/max-y
    vec4 color;           // premultiplied: background, border or shadow colour
    vec4 contentsRect;    // where the contents land, in bounds space
    vec4 contentsUV;      // the source rectangle in the texture, in 0...1 (contentsRect)
    vec4 contentsCenter;  // the stretchable middle in source units of contentsUV (x, y, w, h in 0...1)
    vec4 clipRect;        // the clipping layer's bounds
    vec4 clipRadii;       // its corner radii
    vec4 params;          // x: opacity, y: border width, z: shadow sigma
    vec4 params2;         // x: cross-fade progress, y: contents pixels per point (contentsScale),
                          // z: blend mode (KIND_BLEND)
    vec4 tint;            // rgb: multiplies the colour (a replicator's instanceColor); w: where the
                          // gradient's block starts, in vec4s of the buffer (FLAG_GRADIENT)
};

const uint FLAG_HAS_CONTENTS = 1u;
const uint FLAG_CLIP = 2u;
const uint FLAG_CONTENTS_ROUNDED = 4u;
const uint FLAG_NINE_PART = 8u;
const uint FLAG_FLIP_CONTENTS = 16u;
const uint FLAG_HAS_BACKGROUND = 32u;
const uint FLAG_CROSS_FADE = 64u;
const uint FLAG_TINT = 128u;   // contents alpha times color: a blurred shadow shape
const uint FLAG_MASK = 256u;   // contents times the alpha of texture 2 (a mask layer's pixels)
// A GradientLayer's gradient over the background, inside the rounded bounds. Its block, after
// the instances: geometry (start.xy, end.xy in unit coordinates of the bounds), then (type: 0
// axial, 1 radial, 2 conic; stop count n), then n premultiplied colours, then n locations packed
// four to a vec4.
const uint FLAG_GRADIENT = 512u;
// Adds the colour to what is below (an additive emitter's particles): "over" with alpha 0.
const uint FLAG_ADDITIVE = 1024u;

const uint KIND_BODY = 0u;    // background and contents
const uint KIND_BORDER = 1u;
const uint KIND_SHADOW = 2u;
// One direction of a separable Gaussian over texture 1's alpha, for shadows of composited alpha.
// The instance's transform maps target pixels to the pass, so positions are target pixels;
// contentsRect is the source's box on the target, contentsCenter.xy the shadow offset (the source
// is read that far back) and contentsCenter.zw the direction, params.z sigma in pixels.
const uint KIND_BLUR = 3u;
// Layer filters (Sources/Renderer/FilterEffects.swift). Each reads texture 1, an earlier pass's
// intermediate laid over the same target pixels as the instance's quad (contentsRect: its box).
// KIND_FILTER_BLUR: one direction of a separable Gaussian over premultiplied RGBA, the source
// clamped at its box's edge; contentsCenter.zw the direction, params.z sigma in pixels.
const uint KIND_FILTER_BLUR = 4u;
// KIND_COLOR_MATRIX: a 4x5 matrix over unpremultiplied colour; its block (after the instances,
// at tint.w) holds the rows' first four columns as four vec4s, then the fifth column.
const uint KIND_COLOR_MATRIX = 5u;
// KIND_BLEND: texture 1 (the layer) blended with texture 2 (what is behind it, the same box) by
// the W3C blend mode numbered params2.z (Filter.Kind.blendModeIndex); drawn "over" the backdrop.
const uint KIND_BLEND = 6u;
// KIND_DISTORTION: a pinch, bump or twirl of texture 1 (LayerKit's Distortion.sourcePoint). Its
// block (after the instances, at tint.w): the layer's map to target pixels as four row vectors,
// the plane inverse back as four more, then (centre.xy, radius, amount) in the layer's bounds
// space and (kind: 0 pinch, 1 bump, 2 twirl). Outside its box the source is transparent.
const uint KIND_DISTORTION = 7u;

layout(std430, set = 0, binding = 0) readonly buffer Instances {
    LayerInstance instances[];
};

layout(push_constant) uniform Draw {
    uint instanceIndex;   // of the draw's first instance
    vec2 targetSize;      // at offset 8 (std430 aligns vec2 to 8 bytes)
} draw;

// The draw's kind and flags are specialization constants, not data: each combination becomes its
// own pipeline, compiled with only the code it uses. CPU drivers (lavapipe) run every pixel through
// both sides of a branch, so an all-in-one shader would pay for shadows and blurs on every pixel.
layout(constant_id = 0) const uint KIND = 0u;
layout(constant_id = 1) const uint FLAGS = 0u;
