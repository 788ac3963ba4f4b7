#version 450
#extension GL_GOOGLE_include_directive : require
#include "layer.glsl"

layout(location = 0) in vec2 localPosition;
layout(location = 1) flat in uint instanceIndex;
layout(location = 0) out vec4 outColor;

// The instances' buffer seen as vec4s, for the gradient blocks that follow the instances.
layout(std430, set = 0, binding = 0) readonly buffer InstanceWords {
    vec4 words[];
};

layout(set = 0, binding = 1) uniform sampler2D contents;
layout(set = 0, binding = 2) uniform sampler2D previousContents;

// Signed distance to a rounded rectangle (negative inside), with a radius per corner.
float roundedRectDistance(vec2 p, vec4 rect, vec4 radii) {
    vec2 centre = rect.xy + rect.zw * 0.5;
    vec2 halfSize = rect.zw * 0.5;
    vec2 d = p - centre;
    float r = d.x < 0.0 ? (d.y < 0.0 ? radii.x : radii.w) : (d.y < 0.0 ? radii.y : radii.z);
    vec2 q = abs(d) - halfSize + r;
    return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - r;
}

// The size of one output pixel in the layer's units. The distance fields are 1-Lipschitz in
// those units, so this is the width to anti-alias over; it comes from the linearly interpolated
// position, whose derivatives stay smooth where a distance field has a kink.
float pixelSize;

// Coverage of a pixel by the inside of a distance field, anti-aliased over one pixel.
float coverage(float distance) {
    return clamp(0.5 - distance / pixelSize, 0.0, 1.0);
}

// Core Animation's nine-part stretching: the corners keep their source size, the edges stretch
// along one axis and the middle along both.
float ninePart(float t, float destLength, float sourceLength, float centreStart, float centreLength) {
    float before = centreStart * sourceLength;
    float after = (1.0 - centreStart - centreLength) * sourceLength;
    float stretch = max(destLength - before - after, 0.0);
    float scale = (before + after) > destLength ? destLength / max(before + after, 1e-4) : 1.0;
    float x = t * destLength;
    if (x < before * scale) return x / scale / sourceLength;
    if (x > destLength - after * scale) return 1.0 - (destLength - x) / scale / sourceLength;
    float u = stretch > 0.0 ? (x - before) / stretch : 0.5;
    return centreStart + u * centreLength;
}

// The Gaussian-blurred rounded rectangle's coverage (shadows): separable erf approximation along
// x, integrated numerically along y (Evan Wallace's method).
vec4 erfVec(vec4 x) {
    vec4 s = sign(x), a = abs(x);
    x = 1.0 + (0.278393 + (0.230389 + 0.078108 * (a * a)) * a) * a;
    x *= x;
    return s - s / (x * x);
}

float gaussian(float x, float sigma) {
    const float pi = 3.141592653589793;
    return exp(-(x * x) / (2.0 * sigma * sigma)) / (sqrt(2.0 * pi) * sigma);
}

float roundedBoxShadowX(float x, float y, float sigma, float corner, vec2 halfSize) {
    float delta = min(halfSize.y - corner - abs(y), 0.0);
    float curved = halfSize.x - corner + sqrt(max(0.0, corner * corner - delta * delta));
    vec2 integral = 0.5 + 0.5 * erfVec(vec4((x + vec2(-curved, curved)) * (sqrt(0.5) / sigma), 0.0, 0.0)).xy;
    return integral.y - integral.x;
}

float roundedBoxShadow(vec2 p, vec4 rect, float sigma, float corner) {
    vec2 halfSize = rect.zw * 0.5;
    vec2 point = p - (rect.xy + halfSize);
    float low = point.y - halfSize.y;
    float high = point.y + halfSize.y;
    float start = clamp(-3.0 * sigma, low, high);
    float end = clamp(3.0 * sigma, low, high);
    float step = (end - start) / 4.0;
    float y = start + step * 0.5;
    float value = 0.0;
    for (int i = 0; i < 4; i++) {
        value += roundedBoxShadowX(point.x, point.y - y, sigma, corner, halfSize) * gaussian(y, sigma) * step;
        y += step;
    }
    return value;
}

// The gradient's premultiplied colour at p (bounds space): the stops are interpolated with
// premultiplied alpha, and the end colours extend beyond the first and last stop.
vec4 gradientColor(vec2 p, vec4 bounds, uint base) {
    vec4 geometry = words[base];
    vec2 u = (p - bounds.xy) / max(bounds.zw, vec2(1e-6));
    vec2 d = geometry.zw - geometry.xy;
    vec2 q = u - geometry.xy;
    float type = words[base + 1u].x;
    int n = int(words[base + 1u].y);
    float t;
    if (type < 0.5) {
        float lengthSquared = dot(d, d);
        t = lengthSquared > 0.0 ? dot(q, d) / lengthSquared : 0.0;
    } else if (type < 1.5) {
        // A zero radius on one axis gives the end colour off that axis.
        vec2 r = abs(d);
        vec2 e = vec2(
            r.x > 0.0 ? q.x / r.x : (q.x == 0.0 ? 0.0 : 1e30),
            r.y > 0.0 ? q.y / r.y : (q.y == 0.0 ? 0.0 : 1e30));
        t = length(e);
    } else {
        t = fract((atan(q.y, q.x) - atan(d.y, d.x)) / 6.283185307179586);
    }
    uint colors = base + 2u;
    uint locations = colors + uint(n);
    vec4 result = words[colors];
    for (int i = 1; i < n; i++) {
        float a = words[locations + uint(i - 1) / 4u][(i - 1) % 4];
        float b = words[locations + uint(i) / 4u][i % 4];
        if (t > a) {
            float f = b > a ? min(1.0, (t - a) / (b - a)) : 1.0;
            result = mix(words[colors + uint(i - 1)], words[colors + uint(i)], f);
        }
    }
    return result;
}

// The W3C Compositing and Blending modes on unpremultiplied colours: cb behind, cs the layer.
float luminosity(vec3 c) {
    return dot(c, vec3(0.3, 0.59, 0.11));
}

vec3 clipColor(vec3 c) {
    float l = luminosity(c);
    float n = min(min(c.r, c.g), c.b);
    float x = max(max(c.r, c.g), c.b);
    if (n < 0.0) c = l + (c - l) * l / (l - n);
    if (x > 1.0) c = l + (c - l) * (1.0 - l) / (x - l);
    return c;
}

vec3 setLuminosity(vec3 c, float l) {
    return clipColor(c + (l - luminosity(c)));
}

float saturation(vec3 c) {
    return max(max(c.r, c.g), c.b) - min(min(c.r, c.g), c.b);
}

vec3 setSaturation(vec3 c, float s) {
    float n = min(min(c.r, c.g), c.b);
    float x = max(max(c.r, c.g), c.b);
    return x > n ? (c - n) * s / (x - n) : vec3(0.0);
}

vec3 hardLight(vec3 cb, vec3 cs) {
    vec3 multiply = cb * 2.0 * cs;
    vec3 s = 2.0 * cs - 1.0;
    vec3 screen = cb + s - cb * s;
    return mix(multiply, screen, vec3(greaterThan(cs, vec3(0.5))));
}

vec3 blend(int mode, vec3 cb, vec3 cs) {
    switch (mode) {
    case 0: return cb * cs;
    case 1: return cb + cs - cb * cs;
    case 2: return hardLight(cs, cb);
    case 3: return min(cb, cs);
    case 4: return max(cb, cs);
    case 5: {
        vec3 r;
        for (int i = 0; i < 3; i++) {
            r[i] = cb[i] == 0.0 ? 0.0 : (cs[i] >= 1.0 ? 1.0 : min(1.0, cb[i] / (1.0 - cs[i])));
        }
        return r;
    }
    case 6: {
        vec3 r;
        for (int i = 0; i < 3; i++) {
            r[i] = cb[i] >= 1.0 ? 1.0 : (cs[i] <= 0.0 ? 0.0 : 1.0 - min(1.0, (1.0 - cb[i]) / cs[i]));
        }
        return r;
    }
    case 7: {
        vec3 d = mix(sqrt(cb), ((16.0 * cb - 12.0) * cb + 4.0) * cb, vec3(lessThanEqual(cb, vec3(0.25))));
        vec3 darker = cb - (1.0 - 2.0 * cs) * cb * (1.0 - cb);
        vec3 lighter = cb + (2.0 * cs - 1.0) * (d - cb);
        return mix(lighter, darker, vec3(lessThanEqual(cs, vec3(0.5))));
    }
    case 8: return hardLight(cb, cs);
    case 9: return abs(cb - cs);
    case 10: return cb + cs - 2.0 * cb * cs;
    case 11: return setLuminosity(setSaturation(cs, saturation(cb)), luminosity(cb));
    case 12: return setLuminosity(setSaturation(cb, saturation(cs)), luminosity(cb));
    case 13: return setLuminosity(cs, luminosity(cb));
    default: return setLuminosity(cb, luminosity(cs));
    }
}

vec3 unpremultiplied(vec4 c) {
    return c.a > 0.0 ? c.rgb / c.a : vec3(0.0);
}

void main() {
    LayerInstance layer = instances[instanceIndex];
    const uint flags = FLAGS;
    vec2 p = localPosition;
    pixelSize = max(0.5 * (length(dFdx(p)) + length(dFdy(p))), 1e-4);
    float opacity = layer.params.x;

    // The nearest clipping ancestor (masksToBounds), with its rounded corners.
    float clip = 1.0;
    if ((flags & FLAG_CLIP) != 0u) {
        vec4 q = layer.clipInverse * vec4(gl_FragCoord.xy, 0.0, 1.0);
        vec2 clipPoint = q.xy / q.w;
        float d = roundedRectDistance(clipPoint, layer.clipRect, layer.clipRadii);
        float clipPixel = max(0.5 * (length(dFdx(clipPoint)) + length(dFdy(clipPoint))), 1e-4);
        clip = clamp(0.5 - d / clipPixel, 0.0, 1.0);
    }

    vec4 color = vec4(0.0);
    if (KIND == KIND_SHADOW) {
        float sigma = layer.params.z;
        float shape = sigma > 0.0
            ? roundedBoxShadow(p, layer.bounds, sigma, layer.radii.x)
            : coverage(roundedRectDistance(p, layer.bounds, layer.radii));
        color = layer.color * shape;
    } else if (KIND == KIND_BLUR) {
        float sigma = max(layer.params.z, 0.01);
        vec4 source = layer.contentsRect;
        vec2 direction = layer.contentsCenter.zw;
        vec2 centre = p - layer.contentsCenter.xy;
        int radius = int(ceil(3.0 * sigma));
        float sum = 0.0;
        float total = 0.0;
        for (int i = -radius; i <= radius; i++) {
            float weight = exp(-float(i * i) / (2.0 * sigma * sigma));
            vec2 uv = (centre + direction * float(i) - source.xy) / source.zw;
            // Outside its box the source is transparent, not its clamped edge.
            bool inside = all(greaterThanEqual(uv, vec2(0.0))) && all(lessThanEqual(uv, vec2(1.0)));
            sum += inside ? weight * textureLod(contents, uv, 0.0).a : 0.0;
            total += weight;
        }
        color = vec4(sum / total);
    } else if (KIND == KIND_FILTER_BLUR) {
        // Pairs of taps share one bilinear fetch between their texels, weighted by their sum.
        float sigma = layer.params.z;
        vec4 source = layer.contentsRect;
        vec2 direction = layer.contentsCenter.zw;
        int radius = sigma > 0.0 ? int(ceil(3.0 * sigma)) : 0;
        vec4 sum = textureLod(contents, (p - source.xy) / source.zw, 0.0);
        float total = 1.0;
        for (int i = 1; i <= radius; i += 2) {
            float w1 = exp(-float(i * i) / (2.0 * sigma * sigma));
            float w2 = i + 1 <= radius ? exp(-float((i + 1) * (i + 1)) / (2.0 * sigma * sigma)) : 0.0;
            float w = w1 + w2;
            vec2 offset = direction * (float(i) + w2 / w);
            sum += w * (textureLod(contents, (p + offset - source.xy) / source.zw, 0.0)
                + textureLod(contents, (p - offset - source.xy) / source.zw, 0.0));
            total += 2.0 * w;
        }
        color = sum / total;
    } else if (KIND == KIND_COLOR_MATRIX) {
        vec4 texel = textureLod(contents, (p - layer.contentsRect.xy) / layer.contentsRect.zw, 0.0);
        vec4 c = vec4(unpremultiplied(texel), texel.a);
        uint base = uint(layer.tint.w);
        vec4 bias = words[base + 4u];
        vec4 r = clamp(vec4(
            dot(words[base], c), dot(words[base + 1u], c), dot(words[base + 2u], c), dot(words[base + 3u], c)) + bias,
            0.0, 1.0);
        color = vec4(r.rgb * r.a, r.a);
    } else if (KIND == KIND_BLEND) {
        vec2 uv = (p - layer.contentsRect.xy) / layer.contentsRect.zw;
        vec4 s = textureLod(contents, uv, 0.0);
        vec4 b = textureLod(previousContents, uv, 0.0);
        vec3 mixed = clamp(blend(int(layer.params2.z), unpremultiplied(b), unpremultiplied(s)), 0.0, 1.0);
        color = vec4((1.0 - b.a) * s.rgb + s.a * b.a * mixed, s.a);
    } else if (KIND == KIND_DISTORTION) {
        uint base = uint(layer.tint.w);
        mat4 toPixels = mat4(words[base], words[base + 1u], words[base + 2u], words[base + 3u]);
        mat4 toLayer = mat4(words[base + 4u], words[base + 5u], words[base + 6u], words[base + 7u]);
        vec4 circle = words[base + 8u];
        float kind = words[base + 9u].x;
        vec4 q = toLayer * vec4(p, 0.0, 1.0);
        vec2 d = q.xy / q.w - circle.xy;
        float r = length(d);
        vec2 source = d;
        if (r < circle.z) {
            float u = r / circle.z;
            float k = 1.0 - u * u;
            if (kind < 0.5) {
                source = d * pow(1.0 + circle.w, k * k * k);
            } else if (kind < 1.5) {
                source = d * (1.0 - circle.w * k * k);
            } else {
                float angle = -circle.w * (1.0 - u) * (1.0 - u);
                float c = cos(angle), s = sin(angle);
                source = vec2(c * d.x - s * d.y, s * d.x + c * d.y);
            }
        }
        vec4 pixel = toPixels * vec4(circle.xy + source, 0.0, 1.0);
        vec2 uv = (pixel.xy / pixel.w - layer.contentsRect.xy) / layer.contentsRect.zw;
        bool inside = all(greaterThanEqual(uv, vec2(0.0))) && all(lessThanEqual(uv, vec2(1.0)));
        color = inside ? textureLod(contents, uv, 0.0) : vec4(0.0);
    } else if (KIND == KIND_BORDER) {
        float outer = coverage(roundedRectDistance(p, layer.bounds, layer.radii));
        float w = layer.params.y;
        vec4 innerRect = vec4(layer.bounds.xy + w, max(layer.bounds.zw - 2.0 * w, 0.0));
        float inner = coverage(roundedRectDistance(p, innerRect, max(layer.radii - w, 0.0)));
        color = layer.color * outer * (1.0 - inner);
    } else {
        float shape = coverage(roundedRectDistance(p, layer.bounds, layer.radii));
        if ((flags & FLAG_HAS_BACKGROUND) != 0u) {
            color = layer.color * shape;
        }
        if ((flags & FLAG_GRADIENT) != 0u) {
            vec4 gradient = gradientColor(p, layer.bounds, uint(layer.tint.w)) * shape;
            color = gradient + color * (1.0 - gradient.a);
        }
        if ((flags & FLAG_HAS_CONTENTS) != 0u) {
            vec4 dest = layer.contentsRect;
            vec2 t = (p - dest.xy) / max(dest.zw, vec2(1e-6));
            // Outside the destination the edge pixels would repeat; contents end at their rectangle.
            vec2 inside = step(vec2(0.0), t) * step(t, vec2(1.0));
            float cover = inside.x * inside.y;
            if ((flags & FLAG_NINE_PART) != 0u) {
                vec2 sourceSize = vec2(textureSize(contents, 0)) * layer.contentsUV.zw;
                float scale = max(layer.params2.y, 1e-4);
                t = vec2(
                    ninePart(t.x, dest.z * scale, sourceSize.x, layer.contentsCenter.x, layer.contentsCenter.z),
                    ninePart(t.y, dest.w * scale, sourceSize.y, layer.contentsCenter.y, layer.contentsCenter.w));
            }
            if ((flags & FLAG_FLIP_CONTENTS) != 0u) {
                t.y = 1.0 - t.y;
            }
            vec2 uv = layer.contentsUV.xy + clamp(t, 0.0, 1.0) * layer.contentsUV.zw;
            vec4 texel = texture(contents, uv);
            if ((flags & FLAG_CROSS_FADE) != 0u) {
                texel = mix(texture(previousContents, uv), texel, layer.params2.x);
            }
            if ((flags & FLAG_MASK) != 0u) {
                texel *= texture(previousContents, uv).a;
            }
            if ((flags & FLAG_TINT) != 0u) {
                texel = layer.color * texel.a;
            }
            if ((flags & FLAG_CONTENTS_ROUNDED) != 0u) {
                cover *= shape;
            }
            texel *= cover;
            color = texel + color * (1.0 - texel.a);
        }
    }
    outColor = color * vec4(layer.tint.rgb, 1.0) * opacity * clip;
    if ((flags & FLAG_ADDITIVE) != 0u) {
        outColor.a = 0.0;
    }
}
