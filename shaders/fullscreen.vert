// fullscreen.vert: one triangle that covers the whole viewport, made from gl_VertexID alone
// (no vertex buffers). The fragment shader works from gl_FragCoord, so it needs no varyings.

void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
