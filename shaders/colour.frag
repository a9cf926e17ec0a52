// colour.frag: the prelude of a colouring shader in Kalles Fraktaler's form. A user's file
// defines `vec3 colour()`, which is called once a pixel with the pixel's raw data behind these
// accessors (package render uploads the data of a tile, with a margin of neighbours, and draws
// one triangle over it); the colour it returns is clamped to [0, 1] and stored as 8 bits.
//
// The accessors, with Kalles Fraktaler's meanings (written here from its documented API):
//   getN()          the smooth escape count as a float49 (a pair of floats: .x[0] + .x[1]),
//                   N + 1 - NF; getN0(), getN1() the integer count's low and high 32 bits
//   getNF()         Kalles Fraktaler's fraction NF in (0, 1]: the smooth count is N + 1 - NF
//   getT()          arg(z_N) / 2pi in [0, 1) (0 where the data has no T channel)
//   getDE()         the distance estimate in pixels times the unit normal; getDEX(), getDEY()
//   getInterior()   the point did not escape (N is the iterations: KFP_Iterations)
//   getGlitch()     a glitched pixel: never here (perturbation with rebasing has none)
//   every one also with an ivec2 offset: the neighbour that many pixels right (x) and down
//   (y), clamped to the data at hand (the picture's edges, and a margin of NEIGHBOURS pixels
//   around each tile); inImage(offset) says whether the neighbour is inside the picture.
//   getCoord()      the pixel's centre in the picture, x right and y down, in pixels
//   getJitter()     the pixel's offset from its centre: (0, 0) (no jitter)
//   getZoomLog2()   log2 of the zoom
//   ImageSize       the picture's size in pixels (KFP_ImageSize the same)
//   KFP_Palette     the colouring's palette, one texel a stop; KF_Palette(x) its colour at
//                   x cycles (linear between the stops); KFP_IterDiv and KFP_ColorOffset the
//                   density and offset as Kalles Fraktaler scales them (getN() / KFP_IterDiv
//                   + KFP_ColorOffset, divided by 1024, is the palette position in cycles);
//                   KF_Colour() the palette at the smooth count, interior KFP_InteriorColor
//   hsv2rgb, srgb2lrgb, lrgb2srgb, hypot1, hypot2, sqr, pi, nan; float49 arithmetic (add,
//   sub, mul, div, neg, floor, wrap, to_float, the comparisons) and getN3x3.

#define NEIGHBOURS 2

vec3 colour(void);

uniform ivec2 ImageSize;
#define KFP_ImageSize ImageSize
uniform sampler1D KFP_Palette;
uniform vec3 KFP_InteriorColor;
uniform bool KFP_ShowGlitches;
uniform uvec2 KFP_Iterations;
uniform float KFP_IterDiv;
uniform float KFP_ColorOffset;
uniform bool KFP_Smooth;
uniform bool KFP_Flat;
uniform bool KFP_InverseTransition;
uniform bool KFP_sRGB;
uniform uint KFP_JitterSeed;

uniform usampler2D uN;    // N: the integer count (KFP_Iterations inside)
uniform sampler2D uData;  // NF, T, DEX, DEY
uniform ivec2 uTileOrigin; // the picture pixel of the tile's first fragment
uniform ivec2 uTexOrigin;  // the picture pixel of the data's texel (0, 0)
uniform ivec2 uTexSize;    // the data's size in texels
uniform float uZoomLog2;

out vec4 fragColour;

const float nan = 0.0 / 0.0;
const float pi = 3.141592653589793;

ivec2 pixelCoord(void) { return uTileOrigin + ivec2(gl_FragCoord.xy); }

ivec2 texelOf(ivec2 offset) {
    return clamp(pixelCoord() + offset - uTexOrigin, ivec2(0), uTexSize - 1);
}

// A function of a built-in's name hides every built-in of that name: floor is overloaded for
// float49 below, so the built-in ones are wrapped first and declared again.
float _builtin_floor(float a) { return floor(a); }
vec2 _builtin_floor(vec2 a) { return floor(a); }
vec3 _builtin_floor(vec3 a) { return floor(a); }
vec4 _builtin_floor(vec4 a) { return floor(a); }
float floor(float a) { return _builtin_floor(a); }
vec2 floor(vec2 a) { return _builtin_floor(a); }
vec3 floor(vec3 a) { return _builtin_floor(a); }
vec4 floor(vec4 a) { return _builtin_floor(a); }

// float49: a value as the unevaluated sum of two floats, x[0] the larger.
struct float49 { float x[2]; };

float49 float49_(float a) { float49 r; r.x[0] = a; r.x[1] = 0.0; return r; }
float49 float49_(float a, float b) {
    float s = a + b;
    float49 r; r.x[0] = s; r.x[1] = b - (s - a); return r;
}
float49 add(float49 a, float49 b) {
    float s = a.x[0] + b.x[0];
    float v = s - a.x[0];
    float e = (a.x[0] - (s - v)) + (b.x[0] - v) + a.x[1] + b.x[1];
    return float49_(s, e);
}
float49 float49_(uint a) {
    float hi = float(a);
    return float49_(hi, float(int(a - uint(hi))));
}
float49 float49_(uint hi, uint lo) { return add(float49_(float(hi) * 4294967296.0), float49_(lo)); }
float49 float49_(uint hi, uint lo, float f) { return add(float49_(hi, lo), float49_(f)); }
float49 neg(float49 a) { float49 r; r.x[0] = -a.x[0]; r.x[1] = -a.x[1]; return r; }
float49 add(float49 a, float b) { return add(a, float49_(b)); }
float49 add(float a, float49 b) { return add(float49_(a), b); }
float49 sub(float49 a, float49 b) { return add(a, neg(b)); }
float49 sub(float49 a, float b) { return add(a, float49_(-b)); }
float49 sub(float a, float49 b) { return add(float49_(a), neg(b)); }
// split49 is Dekker's split of a float into two halves of 12 bits each, whose products are
// exact.
vec2 split49(float a) {
    float t = 4097.0 * a;
    float hi = t - (t - a);
    return vec2(hi, a - hi);
}
float49 mul(float49 a, float49 b) {
    float p = a.x[0] * b.x[0];
    vec2 u = split49(a.x[0]), v = split49(b.x[0]);
    float e = ((u.x * v.x - p) + u.x * v.y + u.y * v.x) + u.y * v.y;
    e += a.x[0] * b.x[1] + a.x[1] * b.x[0];
    return float49_(p, e);
}
float49 mul(float49 a, float b) { return mul(a, float49_(b)); }
float49 mul(float a, float49 b) { return mul(float49_(a), b); }
float49 div(float49 a, float49 b) {
    float q = a.x[0] / b.x[0];
    float49 r = sub(a, mul(b, q));
    return add(float49_(q), (r.x[0] + r.x[1]) / b.x[0]);
}
float49 div(float49 a, float b) { return div(a, float49_(b)); }
float49 div(float a, float49 b) { return div(float49_(a), b); }
float to_float(float49 a) { return a.x[0] + a.x[1]; }
float49 floor(float49 a) {
    float h = floor(a.x[0]);
    if (h != a.x[0]) return float49_(h);
    return float49_(h, floor(a.x[1]));
}
float49 wrap(float49 a) { return sub(a, floor(a)); }
bool lt(float49 a, float49 b) { return a.x[0] < b.x[0] || (a.x[0] == b.x[0] && a.x[1] < b.x[1]); }
bool gt(float49 a, float49 b) { return lt(b, a); }
bool le(float49 a, float49 b) { return !gt(a, b); }
bool ge(float49 a, float49 b) { return !lt(a, b); }
bool lt(float49 a, float b) { return lt(a, float49_(b)); }
bool gt(float49 a, float b) { return gt(a, float49_(b)); }
bool le(float49 a, float b) { return le(a, float49_(b)); }
bool ge(float49 a, float b) { return ge(a, float49_(b)); }
bool eq(float49 a, float49 b) { return a.x[0] == b.x[0] && a.x[1] == b.x[1]; }
bool is_zero(float49 a) { return a.x[0] == 0.0; }
float sqr(float a) { return a * a; }
float49 sqr(float49 a) { return mul(a, a); }

uint  getN0 (ivec2 offset) { return texelFetch(uN, texelOf(offset), 0).r; }
uint  getN1 (ivec2 offset) { return 0u; }
float getNF (ivec2 offset) { return texelFetch(uData, texelOf(offset), 0).r; }
float getT  (ivec2 offset) { return texelFetch(uData, texelOf(offset), 0).g; }
float getDEX(ivec2 offset) { return texelFetch(uData, texelOf(offset), 0).b; }
float getDEY(ivec2 offset) { return texelFetch(uData, texelOf(offset), 0).a; }
vec2  getDE (ivec2 offset) { return texelFetch(uData, texelOf(offset), 0).ba; }
bool  getGlitch  (ivec2 offset) { return getNF(offset) < 0.0; }
bool  getInterior(ivec2 offset) { return uvec2(getN0(offset), getN1(offset)) == KFP_Iterations; }
float49 getN(ivec2 offset) { return float49_(getN1(offset), getN0(offset), 1.0 - getNF(offset)); }
uint  getN0 (void) { return getN0(ivec2(0)); }
uint  getN1 (void) { return getN1(ivec2(0)); }
float getNF (void) { return getNF(ivec2(0)); }
float getT  (void) { return getT(ivec2(0)); }
float getDEX(void) { return getDEX(ivec2(0)); }
float getDEY(void) { return getDEY(ivec2(0)); }
vec2  getDE (void) { return getDE(ivec2(0)); }
bool  getGlitch  (void) { return getGlitch(ivec2(0)); }
bool  getInterior(void) { return getInterior(ivec2(0)); }
float49 getN(void) { return getN(ivec2(0)); }

bool inImage(ivec2 offset) {
    ivec2 p = pixelCoord() + offset;
    return all(greaterThanEqual(p, ivec2(0))) && all(lessThan(p, ImageSize));
}
vec2 getJitter(ivec2 offset) { return vec2(0.0); }
vec2 getJitter(void) { return vec2(0.0); }
vec2 getCoord(void) { return vec2(pixelCoord()) + 0.5; }
float getZoomLog2(void) { return uZoomLog2; }
float getZoomLog2(ivec2 offset) { return uZoomLog2; }

// getN3x3 loads the smooth counts of the 3x3 neighbours less the pixel's own into p (p[i][j]
// for the neighbour i - 1 right and j - 1 down) and their offsets into px, py; it returns the
// pixel's own count.
float49 getN3x3(inout mat3 p, inout mat3 px, inout mat3 py) {
    float49 N = getN();
    for (int j = -1; j <= 1; ++j) {
        for (int i = -1; i <= 1; ++i) {
            p[i + 1][j + 1] = to_float(sub(getN(ivec2(i, j)), N));
            px[i + 1][j + 1] = float(i);
            py[i + 1][j + 1] = float(j);
        }
    }
    return N;
}

float hypot1(float x, float y) { return sqrt(x * x + y * y); }
float hypot2(float x, float y) { return x * x + y * y; }

float srgb2lrgb(float s) { return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4); }
vec3 srgb2lrgb(vec3 s) { return vec3(srgb2lrgb(s.x), srgb2lrgb(s.y), srgb2lrgb(s.z)); }
float lrgb2srgb(float l) { return l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1.0 / 2.4) - 0.055; }
vec3 lrgb2srgb(vec3 l) { return vec3(lrgb2srgb(l.x), lrgb2srgb(l.y), lrgb2srgb(l.z)); }

vec3 hsv2rgb(vec3 c) {
    vec3 p = abs(fract(c.xxx + vec3(1.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0);
    return c.z * mix(vec3(1.0), clamp(p - 1.0, 0.0, 1.0), c.y);
}

// KF_Palette is the palette at x cycles: the stops spread evenly over a cycle, linear between
// neighbours, the last blending into the first (Mandelscope's palette arithmetic).
vec3 KF_Palette(float x) {
    int n = textureSize(KFP_Palette, 0);
    float pos = (x - floor(x)) * float(n);
    int i = min(int(pos), n - 1);
    float f = clamp(pos - float(i), 0.0, 1.0);
    return mix(texelFetch(KFP_Palette, i, 0).rgb, texelFetch(KFP_Palette, (i + 1) % n, 0).rgb, f);
}

// KF_Colour is Kalles Fraktaler's standard colouring, as far as Mandelscope has its settings:
// the palette at the smooth count divided by KFP_IterDiv plus KFP_ColorOffset (1024 a cycle),
// the interior KFP_InteriorColor.
vec3 KF_Colour(void) {
    if (getInterior()) return KFP_InteriorColor;
    float49 iter = KFP_Flat ? float49_(getN1(), getN0()) : getN();
    iter = add(div(iter, KFP_IterDiv), KFP_ColorOffset);
    return KF_Palette(to_float(wrap(div(iter, 1024.0))));
}

void main(void) {
    fragColour = vec4(clamp(colour(), vec3(0.0), vec3(1.0)), 1.0);
}
