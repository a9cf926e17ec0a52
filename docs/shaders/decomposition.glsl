// Binary decomposition and field lines from the final angle T (getT), over the palette at the
// smooth count, darkened near the set by the distance estimate. A Mandelscope example.
vec3 colour()
{
  if (getInterior()) return vec3(0.0);
  float n = to_float(getN());
  // The palette at the smooth count, as the smooth colouring places it.
  vec3 c = KF_Palette((n / KFP_IterDiv + KFP_ColorOffset) / 1024.0);
  // Binary decomposition: the upper and lower half-plane of the first iterate past the bailout.
  float t = getT();
  if (t >= 0.5) c *= 0.6;
  // Field lines: where T is near a whole number of eighths.
  float f = abs(fract(8.0 * t + 0.5) - 0.5);
  c = mix(vec3(1.0), c, smoothstep(0.02, 0.06, f));
  // The boundary, a pixel wide.
  float de = length(getDE());
  return c * clamp(de, 0.0, 1.0);
}
