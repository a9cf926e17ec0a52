// common.glsl: what every fragment shader of the rendering contract shares, included (by the
// Go side, as a source string of its own) before mandel.frag and perturb.frag: the pixel's
// global index, the iteration limit, the colouring, the smooth value, and the state of a
// multi-pass render.
//
// Defines from the Go side's header: exactly one of PREC_F32, PREC_F64, PREC_EMULATED (the
// arithmetic of the orbit; the perturbation shader uses PREC_F64); MAX_STOPS, the size of the
// palette uniform array; for one stage of a multi-pass render STAGE_ITERATE or STAGE_COLOUR;
// SHADE in the programs for a colouring other than the default (a method or a transfer
// function), and DERIV in those that carry the derivative dz/dc (the distance and slopes
// colourings): the default colouring's programs have neither and pay nothing for them.
// ORBIT (mandel.frag's orbit path: another escape radius, the channels T and STRIPE) adds
// shadeOrbit, the angle and stripe colourings (uMethod 3 and 4), which only its programs run,
// and in double a smooth value and normal that hold |z| up to R^2 (smoothValue64, finishDE).
//
// Rows: the framebuffer's row 0 (GL's bottom row) holds the tile's TOP row, so glReadPixels
// delivers rows top-first straight into an image.RGBA with no flip on the CPU.

// The pixel (x, y) of the W x H frame lies (x + 0.5 - W/2, H/2 - y - 0.5) pixel spacings from
// the frame's centre on the screen, and that offset turned by the
// view's rotation in the plane (fractal.Frame.Offsets, fractal.Location.PlaneOffset).
uniform ivec2 uOrigin;   // global pixel index of the framebuffer's pixel (0, 0)
uniform vec2 uHalf;      // (W/2, H/2), exact in float
// The view's rotation: its cosine and sine (fractal.RotationCosSin; (1, 0) unrotated, which
// turns nothing: x * 1 + y * 0 is x exactly), in float, and in the double programs their bits
// (packDouble2x32), which turn the offset in double as the CPU does.
uniform vec2 uRot;
#if defined(PREC_F64)
uniform uvec4 uRotD;
#endif

uniform int uMaxIter;

// The fractal (fractal.Location.Julia): programs compiled with JULIA draw the Julia set of
// the parameter c each shader takes in its own precision (uJuliaC), the others the Mandelbrot
// set (the pixel's point p is c, z_0 = 0). A Julia orbit is z_1 = p, z <- z^2 + c, its escape
// count the least n >= 1 with |z_n| > 2, with no bulb test, and its derivative is taken with
// respect to z_1: w_1 = spacing, w <- 2 z w. A define, not a uniform: the selects a uniform
// needs at each pixel's start cost the Mandelbrot set's shallow views 6-8% on llvmpipe
// (BenchmarkRenderExportView4K), and the Mandelbrot programs stay exactly as they were.
#if defined(JULIA)
const bool isJulia = true;
#else
const bool isJulia = false;
#endif

// Colouring (fractal.Palette.Color and fractal.PalettePosition).
uniform vec3 uStops[MAX_STOPS];  // colour stops, 0..255 per channel
uniform int uNumStops;
uniform float uDensity;
uniform float uOffset;

// Colouring beyond the palette (fractal.Coloring.Shade): uMethod 0 smooth, 1 distance, 2
// slopes; uTransfer 0 linear, 1 sqrt, 2 log; the distance method's line width in pixels, the
// slopes method's light direction (a unit vector) and strength. Methods 1 and 2 read the
// derivative w = dz/dc * spacing, which only the programs compiled with DERIV carry.
uniform int uMethod;
uniform int uTransfer;
uniform float uWidth;
uniform vec2 uLight;
uniform float uStrength;

// REAL is the orbit's scalar type where the code is shared by float and double; Z is the type
// of one coordinate of z and c: float, double, or a float-float pair.
#if defined(PREC_F64)
#define REAL double
#define Z double
#elif defined(PREC_F32)
#define REAL float
#define Z float
#else
#define REAL float
#define Z vec2
#endif

// screenOffset is the fragment's offset from the frame's centre in pixels on the screen (x
// right, y up), from its global index uOrigin + gl_FragCoord.xy (y down): exact in float for
// frames up to 2^23 pixels.
vec2 screenOffset() {
    ivec2 g = uOrigin + ivec2(gl_FragCoord.xy);
    return vec2(float(g.x) + 0.5 - uHalf.x, uHalf.y - float(g.y) - 0.5);
}

// pixelOffset is screenOffset turned into the plane's axes (fractal.Location.PlaneOffset), in
// float.
vec2 pixelOffset() {
    vec2 s = screenOffset();
    precise float x = s.x * uRot.x + s.y * uRot.y;
    precise float y = s.y * uRot.x - s.x * uRot.y;
    return vec2(x, y);
}

#if defined(PREC_F64)
// pixelOffsetD is pixelOffset in double, as fractal.Frame.Offsets computes it.
dvec2 pixelOffsetD() {
    vec2 s = screenOffset();
    double c = packDouble2x32(uRotD.xy), sn = packDouble2x32(uRotD.zw);
    precise double x = double(s.x) * c + double(s.y) * sn;
    precise double y = double(s.y) * c - double(s.x) * sn;
    return dvec2(x, y);
}
#endif

// screenNormal turns a direction in the plane (the normal z / w) into the screen's axes
// (fractal.Location.ScreenOffset, fractal.Frame.ScreenNormal): the light is the screen's.
vec2 screenNormal(vec2 u) {
    precise float x = u.x * uRot.x - u.y * uRot.y;
    precise float y = u.x * uRot.y + u.y * uRot.x;
    return vec2(x, y);
}

// The formula (fractal.Formula, fractal/formula.go): the programs for a formula other than
// the Mandelbrot set's z <- z^2 + c have one kind define, FORMULA_MANDELBROT (f(z) = z),
// FORMULA_BURNING_SHIP (f(z) = |Re z| + i|Im z|) or FORMULA_MANDELBAR (f(z) = conj(z)), and
// POWER D (2 to 8), and iterate z <- f(z)^D + c (formulaStep) with no bulb test; the zero
// formula's programs have none of them and keep the Mandelbrot set's own loop. A POWER with
// no kind this file knows is an error, so that a kind added to fractal without its GLSL
// fails to compile (render's TestFormulaKindsHaveGLSL). perturb.frag's formulaDelta is the
// perturbation step, formulaBlock a block of its BLA table (2x2 real matrices). With DERIV a formula carries its derivative, the
// real 2x2 Jacobian (JACOBIAN, jacStep below; past float64's exponent range perturbexp.frag's
// jacStepX, with an exponent of its own).
#if defined(FORMULA_MANDELBROT) || defined(FORMULA_BURNING_SHIP) || defined(FORMULA_MANDELBAR)
#define FORMULA 1
#endif
#if defined(POWER) && !defined(FORMULA)
#error "POWER without a formula kind this shader knows: add its FORMULA_ define and fold"
#endif
#if defined(FORMULA) && (!defined(POWER) || POWER < 2 || POWER > 8)
#error "a formula needs POWER 2 to 8"
#endif
#if defined(FORMULA) && defined(DERIV)
#define JACOBIAN 1
#endif
#if defined(FORMULA)
const bool isFormula = true;
#else
const bool isFormula = false;
#endif

#if defined(FORMULA)
// formulaFold is the formula's f before the power, on (zr, zi).
void formulaFold(inout REAL zr, inout REAL zi) {
#if defined(FORMULA_BURNING_SHIP)
    zr = abs(zr);
    zi = abs(zi);
#elif defined(FORMULA_MANDELBAR)
    zi = -zi;
#elif !defined(FORMULA_MANDELBROT)
#error "a formula kind with no fold in formulaFold"
#endif
}

// formulaStep is one step z <- f(z)^D + c in REAL's arithmetic, operation for operation
// fractal.formulaStep's (the square's formula for D = 2, else D - 1 complex multiplications
// by f(z)), every result `precise` so that no fma or reordering changes its roundings.
void formulaStep(inout REAL zr, inout REAL zi, REAL cr, REAL ci) {
    formulaFold(zr, zi);
#if POWER == 2
    precise REAL nr = zr * zr - zi * zi + cr;
    precise REAL ni = 2.0 * zr * zi + ci;
#else
    REAL qr = zr, qi = zi;
    for (int k = 1; k < POWER; k++) {
        precise REAL tr = qr * zr - qi * zi;
        precise REAL ti = qr * zi + qi * zr;
        qr = tr;
        qi = ti;
    }
    precise REAL nr = qr + cr;
    precise REAL ni = qi + ci;
#endif
    zr = nr;
    zi = ni;
}
#endif

#if defined(JACOBIAN)
// A formula's derivative (fractal/formula_de.go): the folds are not complex-analytic, so
// dz/dc is the real 2x2 Jacobian J = [[a, b], [c, d]] (scaled by the spacing, as w is),
// carried along the orbit by J <- D f(z)^(D-1) F(z) J + add I (jacStep). Its first column
// (a, c) travels where the Mandelbrot set's w = (wr, wi) does (a conformal J is
// [[wr, -wi], [wi, wr]]), its second column (b, d) in jb and jd, so that the loops and their
// state keep their shape; the multi-pass state holds (b, d) in texture 3's free half (float)
// or in texture 4 (double: packW, unpackW). finishDEJac takes the distance estimate and normal
// from J^T z.
REAL jb = REAL(0.0), jd = REAL(0.0);

// jacStep is fractal.jacStep, operation for operation: at the orbit value (zr, zi) before the
// step, the fold's Jacobian F(z) (diag(sign x, sign y) for the Burning Ship, diag(1, -1) for
// the Mandelbar) flips J's rows, then J becomes P J + add I, P = D w^(D-1) (w = f(z)) acting as
// [[Re P, -Im P], [Im P, Re P]].
void jacStep(REAL zr, REAL zi, inout REAL a, inout REAL b, inout REAL c, inout REAL d, REAL add) {
    REAL wr = zr, wi = zi;
#if defined(FORMULA_BURNING_SHIP)
    if (zr < REAL(0.0)) {
        a = -a;
        b = -b;
        wr = -zr;
    }
    if (zi < REAL(0.0)) {
        c = -c;
        d = -d;
        wi = -zi;
    }
#elif defined(FORMULA_MANDELBAR)
    c = -c;
    d = -d;
    wi = -zi;
#elif !defined(FORMULA_MANDELBROT)
#error "a formula kind with no fold in jacStep"
#endif
    REAL pr = wr, pi = wi;
    for (int k = 2; k < POWER; k++) {
        precise REAL tr = pr * wr - pi * wi;
        precise REAL ti = pr * wi + pi * wr;
        pr = tr;
        pi = ti;
    }
    precise REAL sr = REAL(POWER) * pr;
    precise REAL si = REAL(POWER) * pi;
    precise REAL na = sr * a - si * c + add;
    precise REAL nb = sr * b - si * d;
    precise REAL nc = si * a + sr * c;
    precise REAL nd = si * b + sr * d + add;
    a = na;
    b = nb;
    c = nc;
    d = nd;
}
#endif

// The orbit path (fractal/orbit.go), compiled with ORBIT: mandel.frag's programs of the
// Mandelbrot set or a Julia set (JULIA) in each variant, and perturb.frag's (and
// perturbexp.frag's), with the escape radius R (uBail2 = R^2, the type of the escape test:
// float for the float and emulated variants; |z_N| reaches R^2, whose square passes float's
// range: smoothValue64, smoothValueF and absF) and the channels T and STRIPE (orbitChannels). The last K iterates are kept in orbitRing as the
// loop visits them (slot k mod K, advanced without an integer %; the emulated variant's high
// parts), and STRIPE is their mean of (1 + sin(S arg z)) / 2 at the end: the CPU's orbitRec.
// A Julia orbit's z_1 is the ring's first. The multi-pass stages carry a fifth state texture
// (uState4; perturb.frag a sixth, perturbexp.frag a seventh): a checkpoint, the state at a pass's iteration uK1 - K
// (perturb.frag: K steps before the pass's end), from which the pass where the orbit escapes
// runs again to record the iterates of the pass before, then the channels (T, STRIPE, 0, 0)
// as float bits. Formulas go to the CPU renderer.
#if defined(ORBIT)
#if defined(FORMULA)
#error "ORBIT: the Mandelbrot set or a Julia set"
#endif
#if defined(PREC_F64)
uniform uvec2 uBail2;    // the bits of R^2
#else
uniform float uBail2;    // float32(R^2)
#endif
uniform int uStripeK;    // K, 1 to 64 (fractal.MaxStripeLast)
uniform float uStripeS;  // S
vec2 orbitRing[64];
int orbitSlot = 0;

// escape2 is the squared escape radius.
REAL escape2() {
#if defined(PREC_F64)
    return packDouble2x32(uBail2);
#else
    return uBail2;
#endif
}

// ringPut records the iterate z in the ring's next slot, as float (the emulated variant's
// high parts: Z is then a float-float pair).
void ringPut(Z zr, Z zi) {
#if defined(PREC_EMULATED)
    orbitRing[orbitSlot] = vec2(zr.x, zi.x);
#else
    orbitRing[orbitSlot] = vec2(float(zr), float(zi));
#endif
    orbitSlot = orbitSlot + 1 == uStripeK ? 0 : orbitSlot + 1;
}

// orbitChannels is T = arg(z_n) / 2pi in [0, 1) and STRIPE (fractal.Turn, orbitRec.stripe)
// of an orbit that escaped at n, whose z_n is the ring's last.
void orbitChannels(int n, out float t, out float stripe) {
    vec2 zn = orbitRing[orbitSlot == 0 ? uStripeK - 1 : orbitSlot - 1];
    t = atan(zn.y, zn.x) / 6.283185307179586;
    t = t < 0.0 ? t + 1.0 : t;
    t = t >= 1.0 ? 0.0 : t;
    // Summed oldest first, as the CPU does: the ring's slots from the next one to be written
    // (from slot 0 while it holds fewer than K), so that every path that fills it (one pass,
    // passes that run again from a checkpoint) adds in the same order.
    int cnt = min(n, uStripeK);
    int i = cnt < uStripeK ? 0 : orbitSlot;
    float sum = 0.0;
    for (int j = 0; j < cnt; j++) {
        vec2 z = orbitRing[i];
        sum += 0.5 + 0.5 * sin(uStripeS * atan(z.y, z.x));
        i = i + 1 == uStripeK ? 0 : i + 1;
    }
    stripe = cnt > 0 ? sum / float(cnt) : 0.0;
}
#endif

// smoothValue is nu = m + 1 - log2(0.5 * log2(r2)) for the final |z|^2; for a formula of
// power D, m + 1 - log2(0.5 * log2(r2)) / log2(D), as fractal.smoothFormula (the same value
// for D = 2).
float smoothValue(int m, float r2) {
#if defined(FORMULA) && POWER != 2
    return float(m) + 1.0 - log2(0.5 * log2(r2)) / log2(float(POWER));
#else
    return float(m) + 1.0 - log2(0.5 * log2(r2));
#endif
}

#if defined(ORBIT) && defined(PREC_F64)
// smoothValue64 is smoothValue for the final |z|^2 in double: on the orbit path a radius
// past 2^64 leaves |z|^2 up to R^4 (1e40 at fractal.MaxBailout), past float's range, so a
// value past 2^100 is scaled by 2^-128 (exactly) before it becomes a float, and the 128 added
// to its log2.
float smoothValue64(int m, double r2) {
    bool big = r2 > packDouble2x32(uvec2(0u, 0x46300000u));  // 2^100
    double s = big ? r2 * packDouble2x32(uvec2(0u, 0x37F00000u)) : r2;  // 2^-128
    return float(m) + 1.0 - log2(0.5 * (log2(float(s)) + (big ? 128.0 : 0.0)));
}
#elif defined(ORBIT)
// absF is |(zr, zi)| in float without overflow: the larger component times sqrt(1 + q^2), q
// the ratio of the smaller to it (the orbit path's |z| reaches R^2, 1e20 at
// fractal.MaxBailout, whose square float cannot hold).
float absF(float zr, float zi) {
    float a = max(abs(zr), abs(zi));
    float q = a > 0.0 ? min(abs(zr), abs(zi)) / a : 0.0;
    return a * sqrt(1.0 + q * q);
}

// smoothValueF is smoothValue for a final z whose |z|^2 passed float's range (r2 infinite
// or near it): log2 |z|^2 as 2 log2 of absF's factors.
float smoothValueF(int m, float r2, float zr, float zi) {
    if (r2 < 1.0e37) {
        return smoothValue(m, r2);
    }
    float a = max(abs(zr), abs(zi));
    float q = min(abs(zr), abs(zi)) / a;
    return float(m) + 1.0 - log2(0.5 * (2.0 * log2(a) + log2(1.0 + q * q)));
}
#endif

// colour returns the palette colour (0..255) for smooth value nu, as fractal.Palette.Color.
vec3 colour(float nu) {
    float t = nu * uDensity / 32.0 + uOffset;
    t -= floor(t);
    float pos = t * float(uNumStops);
    int i = min(int(pos), uNumStops - 1);
    float f = pos - float(i);
    vec3 a = uStops[i];
    vec3 b = uStops[i + 1 == uNumStops ? 0 : i + 1];  // no integer %: it is slow on SIMD CPUs
    return floor(a * (1.0 - f) + b * f + 0.5);
}

// shade returns the colour (0..255) of an escaped pixel with smooth value nu, distance
// estimate de (pixels) and normal u, as fractal.Coloring.Shade: the default colouring is
// colour(nu) itself; the others interpolate the palette at the transferred value and scale it
// by the method's brightness before rounding. Programs for the default colouring are compiled
// without SHADE, where it is colour(nu) alone: the branch on the uniforms cost llvmpipe 15% of
// a shallow view's time (BenchmarkRenderExportView4K), as it runs both sides.
#if defined(SHADE)
vec3 shadeScaled(float nu, float k);
#endif
vec3 shade(float nu, float de, vec2 u) {
#if !defined(SHADE)
    return colour(nu);
#else
    if (uMethod == 0 && uTransfer == 0) {
        return colour(nu);
    }
    float k = 1.0;
    if (uMethod == 1) {
        k = de / uWidth;
        k = k > 0.0 ? min(k, 1.0) : 0.0;  // a NaN estimate draws as the line
    } else if (uMethod == 2) {
        float d = dot(u, uLight);
        d = d == d ? clamp(d, -1.0, 1.0) : 0.0;
        k = 1.0 - uStrength * (1.0 - d) * 0.5;
    }
    return shadeScaled(nu, k);
#endif
}

#if defined(SHADE)
// shadeScaled is the palette at nu's transferred value, scaled by the brightness k and
// rounded (fractal.Coloring.Shade past its default).
vec3 shadeScaled(float nu, float k) {
    float v = nu;
    if (uTransfer == 1) {
        v = sqrt(max(nu, 0.0));
    } else if (uTransfer == 2) {
        v = log(1.0 + max(nu, 0.0));
    }
    float t = v * uDensity / 32.0 + uOffset;
    t -= floor(t);
    float pos = t * float(uNumStops);
    int i = min(int(pos), uNumStops - 1);
    float f = clamp(pos - float(i), 0.0, 1.0);
    vec3 a = uStops[i];
    vec3 b = uStops[i + 1 == uNumStops ? 0 : i + 1];
    return floor((a * (1.0 - f) + b * f) * k + 0.5);
}
#endif

#if defined(ORBIT)
// angleBrightness and stripeBrightness are colour.angleBrightness and
// colour.stripeBrightness: the angle colouring's factor for T = t (binary decomposition
// and field lines, 0.06 half turns wide), and the stripe colouring's for STRIPE = v at
// smooth count nu (v drawn towards 1/2 near the bands' edges).
float angleBrightness(float t, float strength) {
    float k = t >= 0.5 ? 1.0 - strength / 2.0 : 1.0;
    float h = 2.0 * t;
    float d = abs(h - floor(h + 0.5));
    if (d < 0.06) {
        k *= 1.0 - strength * (1.0 - d / 0.06);
    }
    return k;
}

float stripeBrightness(float v, float nu, float strength) {
    float f = nu - floor(nu);
    float a = min(1.0, 6.0 * f * (1.0 - f));
    v = 0.5 + (v - 0.5) * a;
    return 1.0 - strength * (1.0 - v);
}

// shadeOrbit is shade with the orbit channels T and STRIPE, for the angle (uMethod 3) and
// stripe (4) colourings.
vec3 shadeOrbit(float nu, float de, vec2 u, float t, float stripe) {
#if defined(SHADE)
    if (uMethod == 3) {
        return shadeScaled(nu, angleBrightness(t, uStrength));
    } else if (uMethod == 4) {
        return shadeScaled(nu, stripeBrightness(stripe, nu, uStrength));
    }
#endif
    return shade(nu, de, u);
}
#endif

// keptDE is a distance estimate d >= 0 as a sample keeps it (colour.NewSample): at most 1e30,
// and a positive one at least colour.MinDE (2^-100 pixels), so that no subnormal float, which
// a GPU may flush to 0, carries it or the normal beside it.
float keptDE(REAL d) {
    float minDE = uintBitsToFloat(0x0D800000u);  // 2^-100
    return d > REAL(0.0) ? max(float(min(d, REAL(1.0e30))), minDE) : 0.0;
}

// finishDE is fractal.finishDE: from the final z and w, the distance estimate in pixels,
// 2 |z| ln|z| / |w|, and the unit vector of z conj(w) turned into the screen's axes
// (screenNormal). w is first divided by its largest
// component, so that neither |w| nor z conj(w) overflows however large w grew; an infinite
// w gives distance 0 and no normal.
void finishDE(REAL zr, REAL zi, REAL wr, REAL wi, out float de, out vec2 u) {
    REAL m = max(abs(wr), abs(wi));
#if defined(ORBIT) && !defined(PREC_F64)
    float az = absF(zr, zi);
#else
    float az = float(sqrt(zr * zr + zi * zi));
#endif
    de = 0.0;
    u = vec2(0.0);
    if (m == REAL(0.0)) {
        de = 1.0e30;  // w = 0: infinitely far, in any colouring
        return;
    }
    REAL sr = wr / m, si = wi / m;  // inf / inf is NaN: caught below
    REAL aw = m * sqrt(sr * sr + si * si);
    REAL d = REAL(2.0 * az * log(az)) / aw;
    if (d >= REAL(0.0)) {
        de = keptDE(d);
    }
#if defined(ORBIT)
    // On the orbit path |z| reaches R^2 (1e20 at fractal.MaxBailout), and |n|^2 would pass
    // float's range: n is divided by its largest component first.
    REAL nr = zr * sr + zi * si, ni = zi * sr - zr * si;
    REAL nm = max(abs(nr), abs(ni));
    vec2 n = nm > REAL(0.0) ? vec2(float(nr / nm), float(ni / nm)) : vec2(0.0);
#else
    vec2 n = vec2(float(zr * sr + zi * si), float(zi * sr - zr * si));
#endif
    float h = length(n);
    if (h > 0.0 && h < 1.0e30) {
        u = screenNormal(n / h);
    }
}

#if defined(JACOBIAN)
// hypotR is |(x, y)| without overflow or underflow in the squares (fractal's math.Hypot).
REAL hypotR(REAL x, REAL y) {
    REAL m = max(abs(x), abs(y));
    if (m == REAL(0.0)) {
        return m;
    }
    REAL sx = x / m, sy = y / m;
    return m * sqrt(sx * sx + sy * sy);
}

// finishDEJac is fractal.finishDEJac: from the final z and the scaled Jacobian J = [[a, b],
// [c, d]], the distance estimate in pixels 2 |z|^2 ln|z| / |J^T z| and the unit vector of
// J^T z turned into the screen's axes (screenNormal). J is first divided by its largest
// entry, so that J^T z cannot overflow however large J grew; an infinite or NaN J gives
// distance 0 and no normal, J = 0 an infinite distance.
void finishDEJac(REAL zr, REAL zi, REAL a, REAL b, REAL c, REAL d, out float de, out vec2 u) {
    de = 0.0;
    u = vec2(0.0);
    REAL m = max(max(abs(a), abs(b)), max(abs(c), abs(d)));
    if (m == REAL(0.0)) {
        de = 1.0e30;
        return;
    }
    REAL sa = a / m, sb = b / m, sc = c / m, sd = d / m;  // inf / inf is NaN: caught below
    precise REAL gr = sa * zr + sc * zi;  // J^T z / m
    precise REAL gi = sb * zr + sd * zi;
    float az = float(hypotR(zr, zi));
    REAL ag = hypotR(gr, gi);
    REAL q = REAL(2.0 * az * log(az)) / (m * (ag / REAL(az)));
    if (q >= REAL(0.0)) {
        de = keptDE(q);
    }
    REAL gm = max(abs(gr), abs(gi));
    if (gm > REAL(0.0) && gm < REAL(1.0e30)) {
        vec2 n = vec2(float(gr / gm), float(gi / gm));
        u = screenNormal(n / length(n));
    }
}
#endif

// escapeSmooth is the smooth value nu of an orbit that escaped at n with z: up to 8 more
// iterations until |z|^2 > 65536 (fractal.smooth; a formula's steps, fractal.smoothFormula),
// in the orbit's own type; the emulated variant continues on the high parts.
float escapeSmooth(Z cr, Z ci, Z zr, Z zi, int n) {
#if defined(PREC_F64)
    double fr = zr, fi = zi, fcr = cr, fci = ci;
#elif defined(PREC_F32)
    float fr = zr, fi = zi, fcr = cr, fci = ci;
#else
    float fr = zr.x, fi = zi.x, fcr = cr.x, fci = ci.x;
#endif
    int m = n;
    float r2 = float(fr * fr + fi * fi);
    while (r2 <= 65536.0 && m < n + 8) {
#if defined(FORMULA)
        formulaStep(fr, fi, fcr, fci);
#else
        precise REAL t = fr * fr - fi * fi + fcr;
        fi = 2.0 * fr * fi + fci;
        fr = t;
#endif
        r2 = float(fr * fr + fi * fi);
        m++;
    }
#if defined(ORBIT) && defined(PREC_F64)
    return smoothValue64(m, fr * fr + fi * fi);
#elif defined(ORBIT)
    return smoothValueF(m, r2, fr, fi);
#else
    return smoothValue(m, r2);
#endif
}

// escapeSmoothDE is escapeSmooth (the same nu) continued with the derivative w <- 2 z w +
// spacing, then finishDE (a Julia set's derivative passes spacing 0: w <- 2 z w); for a
// formula (JACOBIAN) its Jacobian, whose first column is (wr, wi), by jacStep, then
// finishDEJac.
float escapeSmoothDE(Z cr, Z ci, Z zr, Z zi, REAL wr, REAL wi, REAL spacing, int n, out float de, out vec2 u) {
#if defined(PREC_F64)
    double fr = zr, fi = zi, fcr = cr, fci = ci;
#elif defined(PREC_F32)
    float fr = zr, fi = zi, fcr = cr, fci = ci;
#else
    float fr = zr.x, fi = zi.x, fcr = cr.x, fci = ci.x;
#endif
    int m = n;
    float r2 = float(fr * fr + fi * fi);
    while (r2 <= 65536.0 && m < n + 8) {
#if defined(JACOBIAN)
        // fractal.smoothFormulaDE: the Jacobian at z, then the formula's step.
        jacStep(fr, fi, wr, jb, wi, jd, spacing);
        formulaStep(fr, fi, fcr, fci);
#else
        precise REAL nwr = 2.0 * (fr * wr - fi * wi) + spacing;
        precise REAL nwi = 2.0 * (fr * wi + fi * wr);
        wr = nwr;
        wi = nwi;
        precise REAL t = fr * fr - fi * fi + fcr;
        fi = 2.0 * fr * fi + fci;
        fr = t;
#endif
        r2 = float(fr * fr + fi * fi);
        m++;
    }
#if defined(JACOBIAN)
    finishDEJac(fr, fi, wr, jb, wi, jd, de, u);
#else
    finishDE(fr, fi, wr, wi, de, u);
#endif
#if defined(ORBIT) && defined(PREC_F64)
    return smoothValue64(m, fr * fr + fi * fi);
#elif defined(ORBIT)
    return smoothValueF(m, r2, fr, fi);
#else
    return smoothValue(m, r2);
#endif
}

#if defined(STAGE_ITERATE) || defined(STAGE_COLOUR)
// Multi-pass state, one texel per pixel of the band, in four RGBA32UI textures (bit
// patterns, so that nothing is rounded between passes). Textures 0 and 1 hold the orbit's
// state, laid out by each shader; texture 2 holds (status, check, period, nu): status 0 still
// iterating, 1 black, 2 escaped with smooth value nu; a finished pixel keeps (status, k, 0,
// nu), k the uK1 of the pass that finished it. Texture 3 holds the derivative w for the
// colourings that read it (float: (wr, wi, 0, 0); double: (wr lo, wr hi, wi lo, wi hi)), and
// for a finished pixel (de, u.x, u.y, 0) as float bits; the others leave it undefined.
// A finished pixel is written once more (so that both sets hold it) and then discarded: the
// Go side stops a band's passes when a pass lets no fragment through (occlusion query).
uniform usampler2D uState0;
uniform usampler2D uState1;
uniform usampler2D uState2;
uniform usampler2D uState3;
#if defined(ORBIT) || defined(JACOBIAN) && defined(PREC_F64)
uniform usampler2D uState4;  // the orbit path's checkpoint, or a formula's Jacobian (packW)
#endif
#if defined(ORBIT) && defined(PAGES)
uniform usampler2D uState5;  // perturbation's: the rest of its checkpoint
#endif
#endif

#if defined(STAGE_ITERATE)
uniform int uK0;  // the pass's first iteration: 1 starts every orbit afresh (no state read)
uniform int uK1;  // the pass's last iteration

layout(location = 0) out uvec4 oState0;
layout(location = 1) out uvec4 oState1;
layout(location = 2) out uvec4 oState2;
layout(location = 3) out uvec4 oState3;
#if defined(ORBIT) || defined(JACOBIAN) && defined(PREC_F64)
layout(location = 4) out uvec4 oState4;
#endif
#if defined(ORBIT) && defined(PAGES)
layout(location = 5) out uvec4 oState5;
#endif

// carryFinished handles a pixel that an earlier pass finished (st, its texel of uState2):
// written once more into the other state set, then discarded. It returns false for a pixel
// still iterating.
bool carryFinished(uvec4 st) {
    if (st.x == 0u) {
        return false;
    }
    // Finished: the set written now holds it already, unless the previous pass finished it.
    if (int(st.y) < uK0 - 1) {
        discard;
    }
    oState0 = uvec4(0u);
    oState1 = uvec4(0u);
    oState2 = st;
    oState3 = texelFetch(uState3, ivec2(gl_FragCoord.xy), 0);
#if defined(ORBIT)
    oState4 = texelFetch(uState4, ivec2(gl_FragCoord.xy), 0);
#endif
    return true;
}

// finishedState is texture 2's texel for a pixel that finished in this pass (status 1 black,
// 2 escaped with smooth value nu).
uvec4 finishedState(uint status, float nu) {
    return uvec4(status, uint(uK1), 0u, floatBitsToUint(nu));
}

// finishedShading is texture 3's texel for a pixel that finished in this pass.
uvec4 finishedShading(float de, vec2 u) {
    return uvec4(floatBitsToUint(de), floatBitsToUint(u.x), floatBitsToUint(u.y), 0u);
}

// packW and unpackW carry the derivative in texture 3 while a pixel iterates; a formula's
// Jacobian (JACOBIAN) has its second column (jb, jd) in texture 3's free half in float, and in
// texture 4 in double, which packW writes and unpackW reads as well.
uvec4 packW(REAL wr, REAL wi) {
#if defined(PREC_F64)
#if defined(JACOBIAN)
    oState4 = uvec4(unpackDouble2x32(jb), unpackDouble2x32(jd));
#endif
    return uvec4(unpackDouble2x32(wr), unpackDouble2x32(wi));
#elif defined(JACOBIAN)
    return uvec4(floatBitsToUint(wr), floatBitsToUint(wi), floatBitsToUint(jb), floatBitsToUint(jd));
#else
    return uvec4(floatBitsToUint(wr), floatBitsToUint(wi), 0u, 0u);
#endif
}

void unpackW(uvec4 t, out REAL wr, out REAL wi) {
#if defined(PREC_F64)
    wr = packDouble2x32(t.xy);
    wi = packDouble2x32(t.zw);
#if defined(JACOBIAN)
    uvec4 t4 = texelFetch(uState4, ivec2(gl_FragCoord.xy), 0);
    jb = packDouble2x32(t4.xy);
    jd = packDouble2x32(t4.zw);
#endif
#else
    wr = uintBitsToFloat(t.x);
    wi = uintBitsToFloat(t.y);
#if defined(JACOBIAN)
    jb = uintBitsToFloat(t.z);
    jd = uintBitsToFloat(t.w);
#endif
#endif
}
#endif
