#version 450
#extension GL_GOOGLE_include_directive : require
#include "layer.glsl"

layout(location = 0) out vec2 localPosition;
// Consecutive instances with the same pipeline, textures and scissor share one instanced draw.
layout(location = 1) flat out uint instanceIndex;

// Two triangles covering the instance's quad; no vertex buffers.
const vec2 corners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));

void main() {
    instanceIndex = draw.instanceIndex + uint(gl_InstanceIndex);
    LayerInstance layer = instances[instanceIndex];
    vec2 p = layer.quad.xy + corners[gl_VertexIndex] * layer.quad.zw;
    localPosition = p;
    vec4 pixel = layer.transform * vec4(p, 0.0, 1.0);
    // Output pixels to clip space keeping w, so interpolation stays perspective-correct.
    gl_Position = vec4(2.0 * pixel.x / draw.targetSize.x - pixel.w, 2.0 * pixel.y / draw.targetSize.y - pixel.w, 0.0, pixel.w);
}
