#version 450
// AnimatedPatternRenderer's triangle: opaque, its corners' colours blended across it.
layout(location = 0) in vec3 color;
layout(location = 0) out vec4 result;

void main() {
    result = vec4(color, 1.0);
}
