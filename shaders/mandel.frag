// mandel.frag: the Mandelbrot escape-time colouring of the rendering contract, one pixel per
// fragment, computed from the pixel's GLOBAL index in the frame so that tiles join seamlessly;
// compiled with JULIA, the Julia set of uJuliaC in the same arithmetic; with a formula's
// defines (FORMULA_*, POWER: common.glsl), that formula's set or Julia set. common.glsl comes
// before it.
//
// Exactly one of these is defined by the Go side in a header:
//   PREC_F32       float arithmetic, the mapping of fractal.Frame.Point32
//   PREC_F64       native double (GL 4.0 or GL_ARB_gpu_shader_fp64), fractal.Frame.Point64
//   PREC_EMULATED  double emulated with float-float pairs (hi + lo), for drivers without fp64

// View parameters (Go: render.View). The pixel (x, y) of the W x H frame samples
// c = centre + pixelOffset() * spacing.
// For a Julia set (JULIA, common.glsl) that point is the orbit's z_1 and uJuliaC is c.
#if defined(PREC_F32)
uniform vec2 uCentre;    // float32(re), float32(im)
uniform float uSpacing;  // float32(spacing)
uniform vec2 uJuliaC;    // float32(re), float32(im)
#elif defined(PREC_F64)
uniform uvec4 uCentre;   // the bits of re and im (low word, high word): packDouble2x32
uniform uvec2 uSpacing;  // the bits of spacing
uniform uvec4 uJuliaC;   // the bits of re and im
#else
uniform vec4 uCentre;    // (re.hi, re.lo, im.hi, im.lo)
uniform vec2 uSpacing;   // (spacing.hi, spacing.lo)
uniform vec4 uJuliaC;    // (re.hi, re.lo, im.hi, im.lo)
#endif

// escape2 is the squared escape radius: 4, but in the orbit path's programs (common.glsl's
// ORBIT block, which defines it).
#if !defined(ORBIT)
#if defined(PREC_F64)
double escape2() { return 4.0LF; }
#else
float escape2() { return 4.0; }
#endif
#endif

#if defined(PREC_EMULATED)
// Float-float arithmetic (Dekker/Knuth). Every temporary is `precise` so that the compiler
// can neither reassociate the error terms away nor fuse them into fma.
vec2 twoSum(float a, float b) {
    precise float s = a + b;
    precise float bb = s - a;
    precise float e = (a - (s - bb)) + (b - bb);
    return vec2(s, e);
}
vec2 quickTwoSum(float a, float b) {
    precise float s = a + b;
    precise float e = b - (s - a);
    return vec2(s, e);
}
vec2 split(float a) {
    precise float t = 4097.0 * a;
    precise float hi = t - (t - a);
    precise float lo = a - hi;
    return vec2(hi, lo);
}
vec2 twoProd(float a, float b) {
    precise float p = a * b;
    vec2 as = split(a);
    vec2 bs = split(b);
    precise float e = ((as.x * bs.x - p) + as.x * bs.y + as.y * bs.x) + as.y * bs.y;
    return vec2(p, e);
}
vec2 ffAdd(vec2 a, vec2 b) {
    vec2 s = twoSum(a.x, b.x);
    vec2 t = twoSum(a.y, b.y);
    precise float sy = s.y + t.x;
    s = quickTwoSum(s.x, sy);
    precise float sy2 = s.y + t.y;
    return quickTwoSum(s.x, sy2);
}
vec2 ffMul(vec2 a, vec2 b) {
    vec2 p = twoProd(a.x, b.x);
    precise float e = p.y + (a.x * b.y + a.y * b.x);
    return quickTwoSum(p.x, e);
}
vec2 ffMulF(vec2 a, float b) {
    vec2 p = twoProd(a.x, b);
    precise float e = p.y + a.y * b;
    return quickTwoSum(p.x, e);
}

#if defined(FORMULA)
// ffFormulaStep is formulaStep (common.glsl) in float-float: the fold on the pairs (a pair's
// sign is its high part's), then the square for D = 2 as the Mandelbrot set's emulated step
// computes it, else D - 1 complex multiplications.
void ffFormulaStep(inout vec2 zr, inout vec2 zi, vec2 cr, vec2 ci) {
#if defined(FORMULA_BURNING_SHIP)
    zr = zr.x < 0.0 ? -zr : zr;
    zi = zi.x < 0.0 ? -zi : zi;
#elif defined(FORMULA_MANDELBAR)
    zi = -zi;
#elif !defined(FORMULA_MANDELBROT)
#error "a formula kind with no fold in ffFormulaStep"
#endif
#if POWER == 2
    vec2 zr2 = ffMul(zr, zr);
    vec2 zi2 = ffMul(zi, zi);
    vec2 zri = ffMul(zr, zi);
    zr = ffAdd(ffAdd(zr2, -zi2), cr);
    zi = ffAdd(2.0 * zri, ci);
#else
    vec2 qr = zr, qi = zi;
    for (int k = 1; k < POWER; k++) {
        vec2 tr = ffAdd(ffMul(qr, zr), -ffMul(qi, zi));
        vec2 ti = ffAdd(ffMul(qr, zi), ffMul(qi, zr));
        qr = tr;
        qi = ti;
    }
    zr = ffAdd(qr, cr);
    zi = ffAdd(qi, ci);
#endif
}
#endif
#endif

bool inMainBulbs(float cr, float ci) {
    float x = cr - 0.25;
    float y2 = ci * ci;
    float q = x * x + y2;
    if (q * (q + x) <= 0.25 * y2) {
        return true;
    }
    float x1 = cr + 1.0;
    return x1 * x1 + y2 <= 0.0625;
}

// pixelC returns c for the fragment (the global pixel uOrigin + gl_FragCoord.xy, y down) and
// whether c lies in the main cardioid or the period-2 bulb (black without iterating). For a
// Julia set the point is the orbit's z_1 (orbitStart) and the result false: no bulb test; nor
// for a formula (FORMULA, common.glsl), whose set has other bulbs.
bool pixelC(out Z cr, out Z ci) {
    vec2 off = pixelOffset();
#if defined(PREC_F32)
    precise float pcr = uCentre.x + off.x * uSpacing;
    precise float pci = uCentre.y + off.y * uSpacing;
    cr = pcr;
    ci = pci;
    return !isJulia && !isFormula && inMainBulbs(cr, ci);
#elif defined(PREC_F64)
    double centreRe = packDouble2x32(uCentre.xy), centreIm = packDouble2x32(uCentre.zw);
    double spacing = packDouble2x32(uSpacing);
    dvec2 offD = pixelOffsetD();
    precise double pcr = centreRe + offD.x * spacing;
    precise double pci = centreIm + offD.y * spacing;
    cr = pcr;
    ci = pci;
    // The bulb test in double, as the CPU does it.
    double x = cr - 0.25LF;
    double y2 = ci * ci;
    double q = x * x + y2;
    double x1 = cr + 1.0LF;
    return !isJulia && !isFormula && (q * (q + x) <= 0.25LF * y2 || x1 * x1 + y2 <= 0.0625LF);
#else
    cr = ffAdd(uCentre.xy, ffMulF(uSpacing, off.x));
    ci = ffAdd(uCentre.zw, ffMulF(uSpacing, off.y));
    return !isJulia && !isFormula && inMainBulbs(cr.x, ci.x);
#endif
}

// derSpacing is the pixel spacing in the derivative's type: w = dz/dc * spacing, w <- 2 z w +
// spacing (fractal.EscapeDE32, EscapeDE64; the emulated variant carries w in float).
REAL derSpacing() {
#if defined(PREC_F32)
    return uSpacing;
#elif defined(PREC_F64)
    return packDouble2x32(uSpacing);
#else
    return uSpacing.x;
#endif
}

// derAdd is the term the derivative's step adds: the spacing for the Mandelbrot set (dz/dc),
// 0 for a Julia set (dz/dz_1: w <- 2 z w).
REAL derAdd() {
    return isJulia ? REAL(0.0) : derSpacing();
}

// orbitStart sets up the orbit of the fragment's point (pixelC's, in cr, ci): c, z and w
// before the iteration first, and whether it escaped already (escape count 1). For the
// Mandelbrot set c stays the point, z = w = 0, first = 1; for a Julia set c = uJuliaC,
// z = z_1 = the point, w = w_1 = spacing, first = 2, and escaped when |z_1| > 2. isJulia is a
// constant: the Mandelbrot programs compile to the constants alone.
void orbitStart(inout Z cr, inout Z ci, out Z zr, out Z zi, out REAL wr, out REAL wi, out int first, out bool escaped) {
    Z pr = cr, pi = ci;
    const bool julia = isJulia;
#if defined(PREC_F32)
    Z jr = uJuliaC.x, ji = uJuliaC.y;
    precise float r2 = pr * pr + pi * pi;
#elif defined(PREC_F64)
    Z jr = packDouble2x32(uJuliaC.xy), ji = packDouble2x32(uJuliaC.zw);
    precise double r2 = pr * pr + pi * pi;
#else
    Z jr = uJuliaC.xy, ji = uJuliaC.zw;
    float r2 = pr.x * pr.x + pi.x * pi.x;
#endif
    cr = julia ? jr : pr;
    ci = julia ? ji : pi;
    zr = julia ? pr : Z(0.0);
    zi = julia ? pi : Z(0.0);
    wr = julia ? derSpacing() : REAL(0.0);
    wi = REAL(0.0);
#if defined(JACOBIAN)
    jb = REAL(0.0);  // J = spacing I for a Julia set's z_1, else 0 (the first step makes it
    jd = wr;         // spacing I from z_0 = 0, as fractal.escapeFormulaDE's J(1))
#endif
    first = julia ? 2 : 1;
    escaped = julia && r2 > escape2();
#if defined(ORBIT)
    if (julia) {
        ringPut(pr, pi);  // z_1, the ring's first
    }
#endif
}

// iterate runs iterations k0..k1 (1-based) of c's orbit, continuing from z, the saved z of the
// periodicity test (s), its interval check and the iterations since the last save (period).
// It returns the escape count n when |z(n)| > 2, -1 when the orbit came back to the saved z
// (periodic: black), and 0 when it is still going after k1. The single-pass shader runs
// 1..uMaxIter in one call; the multi-pass one the same iterations in slices, with the state
// carried between them in textures, so both take exactly the same steps. Compiled with DERIV
// (for the colourings that read it) it also carries the derivative w <- 2 z w + spacing (z
// before the step), which changes nothing in z's arithmetic; a formula's, its Jacobian
// (JACOBIAN: jacStep, common.glsl). A Julia set's orbit
// (JULIA) comes from orbitStart at iteration 2 with its own c, and its derivative adds 0
// (derAdd). A formula (FORMULA) steps z <- f(z)^D + c (formulaStep, ffFormulaStep) from the
// same z_0 = 0 (f(0)^D + c = c exactly, fractal.escapeFormula's z_1), with the same escape
// and periodicity tests.
int iterate(Z cr, Z ci, inout Z zr, inout Z zi, inout Z sr, inout Z si, inout int check,
            inout int period, int k0, int k1, inout REAL wr, inout REAL wi) {
    REAL sp = derAdd();
    REAL bail2 = escape2();  // 4 but on the orbit path (ORBIT)
#if !defined(PREC_EMULATED)
    // zr2 and zi2 are the squares the escape test computed: the same roundings as
    // zr*zr - zi*zi + cr on the CPU, with two multiplications fewer.
    Z zr2 = zr * zr, zi2 = zi * zi;
#endif
    for (int k = k0; k <= k1; k++) {
#if defined(DERIV)
#if defined(PREC_EMULATED)
        float fr = zr.x, fi = zi.x;
#else
        REAL fr = zr, fi = zi;
#endif
#if defined(JACOBIAN)
        jacStep(fr, fi, wr, jb, wi, jd, sp);
#else
        precise REAL nwr = 2.0 * (fr * wr - fi * wi) + sp;
        precise REAL nwi = 2.0 * (fr * wi + fi * wr);
        wr = nwr;
        wi = nwi;
#endif
#endif
#if defined(FORMULA) && !defined(PREC_EMULATED)
        formulaStep(zr, zi, cr, ci);
        precise REAL r2 = zr * zr + zi * zi;
        if (r2 > REAL(4.0)) {
            return k;
        }
#elif defined(PREC_F32)
        precise float nzi = 2.0 * zr * zi + ci;
        precise float nzr = zr2 - zi2 + cr;
        zr = nzr;
        zi = nzi;
        zr2 = zr * zr;
        zi2 = zi * zi;
#if defined(ORBIT)
        ringPut(zr, zi);
#endif
        precise float r2 = zr2 + zi2;
        if (r2 > bail2) {
            return k;
        }
#elif defined(PREC_F64)
        precise double nzi = 2.0LF * zr * zi + ci;
        precise double nzr = zr2 - zi2 + cr;
        zr = nzr;
        zi = nzi;
        zr2 = zr * zr;
        zi2 = zi * zi;
#if defined(ORBIT)
        ringPut(zr, zi);
#endif
        precise double r2 = zr2 + zi2;
        if (r2 > bail2) {
            return k;
        }
#else
#if defined(FORMULA)
        ffFormulaStep(zr, zi, cr, ci);
#else
        vec2 zr2 = ffMul(zr, zr);
        vec2 zi2 = ffMul(zi, zi);
        vec2 zri = ffMul(zr, zi);
        zr = ffAdd(ffAdd(zr2, -zi2), cr);
        zi = ffAdd(2.0 * zri, ci);
#endif
#if defined(ORBIT)
        ringPut(zr, zi);
#endif
        float r2 = zr.x * zr.x + zi.x * zi.x;
        if (r2 > bail2) {
            return k;
        }
#endif
        if (zr == sr && zi == si) {
            return -1;
        }
        // Periodicity: save z at iterations 8, 16, 32, ... (selects, not a branch).
        period++;
        bool save = period == check;
        sr = save ? zr : sr;
        si = save ? zi : si;
        check = save ? 2 * check : check;
        period = save ? 0 : period;
    }
    return 0;
}

#if defined(STAGE_ITERATE)
// Multi-pass state (common.glsl): texture 0 holds z, texture 1 the saved z, each as
//   F32 (re, im, 0, 0); F64 (re lo, re hi, im lo, im hi); emulated (re.hi, re.lo, im.hi, im.lo)
// and a pixel still iterating keeps (0, check, period, 0) in texture 2.

uvec4 packZ(Z a, Z b) {
#if defined(PREC_F32)
    return uvec4(floatBitsToUint(a), floatBitsToUint(b), 0u, 0u);
#elif defined(PREC_F64)
    return uvec4(unpackDouble2x32(a), unpackDouble2x32(b));
#else
    return floatBitsToUint(vec4(a, b));
#endif
}

void unpackZ(uvec4 u, out Z a, out Z b) {
#if defined(PREC_F32)
    a = uintBitsToFloat(u.x);
    b = uintBitsToFloat(u.y);
#elif defined(PREC_F64)
    a = packDouble2x32(u.xy);
    b = packDouble2x32(u.zw);
#else
    vec4 f = uintBitsToFloat(u);
    a = f.xy;
    b = f.zw;
#endif
}

void main() {
    Z cr, ci, zr, zi;
    bool inside = pixelC(cr, ci);
    REAL wr, wi;
    int first;
    bool escaped;
    orbitStart(cr, ci, zr, zi, wr, wi, first, escaped);
    // The periodicity test's saved value: the orbit's first, z_0 = 0 or a Julia set's z_1
    // (fractal.escapeJulia counts z_1 as its first iteration).
    Z sr = isJulia ? zr : Z(0.0), si = isJulia ? zi : Z(0.0);
    uint status = inside ? 1u : 0u;
    int check = 8, period = isJulia ? 1 : 0;
    float nu = 0.0, de = 0.0;
    vec2 u = vec2(0.0);
#if defined(ORBIT)
    Z cpr = zr, cpi = zi;  // the checkpoint: z at the previous pass's iteration uK1 - K
    float chT = 0.0, chS = 0.0;  // the channels, once it escaped
#endif
    if (uK0 > 1) {
        ivec2 t = ivec2(gl_FragCoord.xy);
        uvec4 m = texelFetch(uState2, t, 0);
        if (carryFinished(m)) {
            return;
        }
        check = int(m.y);
        period = int(m.z);
        unpackZ(texelFetch(uState0, t, 0), zr, zi);
        unpackZ(texelFetch(uState1, t, 0), sr, si);
#if defined(DERIV)
        unpackW(texelFetch(uState3, t, 0), wr, wi);
#endif
#if defined(ORBIT)
        unpackZ(texelFetch(uState4, t, 0), cpr, cpi);
#endif
        escaped = false;  // a pixel that escaped at 1 finished in the first pass
    }
    if (status == 0u) {
        // An escaped pixel (a Julia set's, at 1) runs no iteration.
#if defined(ORBIT)
        // In two calls, z saved between them at iteration uK1 - K (the Go side makes every
        // pass at least K long) as the next pass's checkpoint: the same steps as one call.
        int k0 = escaped ? uK1 + 1 : max(uK0, first);
        int mid = min(uK1, max(k0 - 1, uK1 - uStripeK));
        int n = iterate(cr, ci, zr, zi, sr, si, check, period, k0, mid, wr, wi);
        Z nextr = zr, nexti = zi;
        if (n == 0) {
            n = iterate(cr, ci, zr, zi, sr, si, check, period, mid + 1, uK1, wr, wi);
        }
        if (n > 0 && uK0 > 1 && n - k0 + 1 < uStripeK) {
            // Fewer than K iterates in this pass's ring: run again from the checkpoint, at
            // least K iterations before this pass, to the same escape (the orbit is the
            // same; it never meets the checkpoint's value again, or it would not escape).
            Z rzr = cpr, rzi = cpi, rsr = cpr, rsi = cpi;
            REAL rwr = REAL(0.0), rwi = REAL(0.0);
            int rcheck = 1 << 30, rperiod = 0;
            orbitSlot = 0;
            iterate(cr, ci, rzr, rzi, rsr, rsi, rcheck, rperiod, 1, uMaxIter, rwr, rwi);
        }
        n = escaped ? 1 : n;
        if (n > 0) {
            orbitChannels(n, chT, chS);
        }
        cpr = nextr;
        cpi = nexti;
#else
        int n = iterate(cr, ci, zr, zi, sr, si, check, period, escaped ? uK1 + 1 : max(uK0, first), uK1, wr, wi);
        n = escaped ? 1 : n;
#endif
        if (n > 0) {
#if defined(DERIV)
            nu = escapeSmoothDE(cr, ci, zr, zi, wr, wi, derAdd(), n, de, u);
#else
            nu = escapeSmooth(cr, ci, zr, zi, n);
#endif
            status = 2u;
        } else if (n < 0 || uK1 >= uMaxIter) {
            status = 1u;
        }
    }
    oState0 = packZ(zr, zi);
    oState1 = packZ(sr, si);
    if (status != 0u) {
        oState2 = finishedState(status, nu);
        oState3 = finishedShading(de, u);
    } else {
        oState2 = uvec4(0u, uint(check), uint(period), 0u);
        oState3 = packW(wr, wi);
    }
#if defined(ORBIT)
    oState4 = status == 0u ? packZ(cpr, cpi) : uvec4(floatBitsToUint(chT), floatBitsToUint(chS), 0u, 0u);
#endif
}

#elif defined(STAGE_COLOUR)
uniform ivec2 uBand;  // the framebuffer pixel of the band's state texel (0, 0)

out vec4 fragColor;

void main() {
    ivec2 t = ivec2(gl_FragCoord.xy) - uBand;
    uvec4 m = texelFetch(uState2, t, 0);
    if (m.x != 2u) {
        fragColor = vec4(0.0, 0.0, 0.0, 1.0);
        return;
    }
    float nu = uintBitsToFloat(m.w);
#if defined(ORBIT)
    // The channels in texture 4; the estimate and normal in texture 3 where the iterate
    // stage carried the derivative (read by the colourings that need it alone).
    uvec4 sh = texelFetch(uState3, t, 0);
    uvec4 ch = texelFetch(uState4, t, 0);
    fragColor = vec4(shadeOrbit(nu, uintBitsToFloat(sh.x), uintBitsToFloat(sh.yz), uintBitsToFloat(ch.x), uintBitsToFloat(ch.y)) / 255.0, 1.0);
    return;
#endif
    if (uMethod == 0) {
        fragColor = vec4(shade(nu, 0.0, vec2(0.0)) / 255.0, 1.0);  // texture 3 is not written
        return;
    }
    uvec4 d = texelFetch(uState3, t, 0);
    fragColor = vec4(shade(nu, uintBitsToFloat(d.x), uintBitsToFloat(d.yz)) / 255.0, 1.0);
}

#elif defined(STAGE_SAMPLE)
// The compute stage in one pass (render's Compute at the iteration counts Render draws in
// one pass): the single-pass orbit, written as the pixel's sample instead of a colour, into
// an RGBA32UI target as float bits: (nu, de, u.x, u.y), nu = +Inf inside (an escaped
// orbit's nu is finite), de and u 0 without DERIV. With ORBIT a second target holds the
// channels: (T, STRIPE, 0, 0) as float bits (0 inside).
layout(location = 0) out uvec4 oSample;
#if defined(ORBIT)
layout(location = 1) out uvec4 oChannels;
#endif

void main() {
    Z cr, ci;
    bool inside = pixelC(cr, ci);
    oSample = uvec4(0x7F800000u, 0u, 0u, 0u);  // +Inf: inside
#if defined(ORBIT)
    oChannels = uvec4(0u);
#endif
    if (inside) {
        return;
    }
    Z zr, zi;
    REAL wr, wi;
    int first;
    bool escaped;
    orbitStart(cr, ci, zr, zi, wr, wi, first, escaped);
    Z sr = isJulia ? zr : Z(0.0), si = isJulia ? zi : Z(0.0);  // the orbit's first value
    int check = 8, period = isJulia ? 1 : 0;
    int n = iterate(cr, ci, zr, zi, sr, si, check, period, escaped ? uMaxIter + 1 : first, uMaxIter, wr, wi);
    n = escaped ? 1 : n;
    if (n <= 0) {
        return;
    }
    float de = 0.0;
    vec2 u = vec2(0.0);
#if defined(DERIV)
    float nu = escapeSmoothDE(cr, ci, zr, zi, wr, wi, derAdd(), n, de, u);
#else
    float nu = escapeSmooth(cr, ci, zr, zi, n);
#endif
    oSample = uvec4(floatBitsToUint(nu), floatBitsToUint(de), floatBitsToUint(u.x), floatBitsToUint(u.y));
#if defined(ORBIT)
    float t, stripe;
    orbitChannels(n, t, stripe);
    oChannels = uvec4(floatBitsToUint(t), floatBitsToUint(stripe), 0u, 0u);
#endif
}

#else
out vec4 fragColor;

void main() {
    Z cr, ci;
    if (pixelC(cr, ci)) {
        fragColor = vec4(0.0, 0.0, 0.0, 1.0);
        return;
    }
    Z zr, zi;
    REAL wr, wi;
    int first;
    bool escaped;
    orbitStart(cr, ci, zr, zi, wr, wi, first, escaped);
    Z sr = isJulia ? zr : Z(0.0), si = isJulia ? zi : Z(0.0);  // the orbit's first value
    int check = 8, period = isJulia ? 1 : 0;
    int n = iterate(cr, ci, zr, zi, sr, si, check, period, escaped ? uMaxIter + 1 : first, uMaxIter, wr, wi);
    n = escaped ? 1 : n;
    if (n <= 0) {
        fragColor = vec4(0.0, 0.0, 0.0, 1.0);
        return;
    }
#if defined(DERIV)
    float de;
    vec2 u;
    float nu = escapeSmoothDE(cr, ci, zr, zi, wr, wi, derAdd(), n, de, u);
#else
    float de = 0.0;
    vec2 u = vec2(0.0);
    float nu = escapeSmooth(cr, ci, zr, zi, n);
#endif
#if defined(ORBIT)
    float t, stripe;
    orbitChannels(n, t, stripe);
    fragColor = vec4(shadeOrbit(nu, de, u, t, stripe) / 255.0, 1.0);
#else
    fragColor = vec4(shade(nu, de, u) / 255.0, 1.0);
#endif
}
#endif
