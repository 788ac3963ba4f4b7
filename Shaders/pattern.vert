#version 450
// AnimatedPatternRenderer's triangle: corners red, green and blue, turned by `angle` radians about
// the drawable's centre and kept equilateral at any aspect ratio.
layout(push_constant) uniform Pattern {
    float angle;
    float aspect; // width / height
} pattern;
layout(location = 0) out vec3 color;

void main() {
    const vec2 corners[3] = vec2[](vec2(0.0, -0.8), vec2(0.69282, 0.4), vec2(-0.69282, 0.4));
    const vec3 colors[3] = vec3[](vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0), vec3(0.0, 0.0, 1.0));
    float c = cos(pattern.angle), s = sin(pattern.angle);
    vec2 p = mat2(c, s, -s, c) * corners[gl_VertexIndex];
    gl_Position = vec4(p.x / pattern.aspect, p.y, 0.0, 1.0);
    color = colors[gl_VertexIndex];
}
