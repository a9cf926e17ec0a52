// perturb.frag: perturbation with rebasing and bilinear approximation (BLA) in native double,
// the GPU form of fractal.PerturbEscape: each pixel iterates its difference d from one
// reference orbit Z, d <- 2 Z_m d + d^2 + dc, skipping iterations by the BLA table's blocks,
// with the same arithmetic, in the same order, as the CPU, so that both give the same escape
// count and smooth value. common.glsl comes before it; the header defines PREC_F64 and PAGES,
// the number of texture buffers each table is split into (1 to 4).
//
// Doubles travel as bit patterns (packDouble2x32: x the low word, y the high word), so the GL
// 3.3 function set is enough and every value arrives exactly.
//
// Compiled with ORBIT (common.glsl's orbit path; perturbexp.frag's likewise) it escapes past
// the radius R and keeps the last K iterates z = Z_m + d in common.glsl's ring, as fractal.perturbCh
// does: the iterates must be stepped one by one, so a pixel whose last K iterates include a
// BLA block's end (orbitBlockEnd) is run again from its start with blocks allowed only up to
// N - K (orbitLimit; N its escape in the run before), until they do not (in passes: from the
// next pass on, the state carried in texture 1).

// dc of the pixel = uD + pixelOffset() * uSpacing (fractal.Frame.Delta).
uniform uvec4 uD;        // the bits of the frame centre minus the reference point (re, im)
uniform uvec2 uSpacing;  // the bits of the pixel spacing
uniform uvec4 uRefC;     // the bits of the reference point C rounded to float64 (re, im)
uniform int uLast;       // the last index of the orbit through 0, fractal.Reference.WLast
uniform int uPeriod;     // the reference's period (fractal.Reference.Period), 0: none

// A Julia set (JULIA, common.glsl): the orbit texture holds the critical orbit of c (Z[0] = 0
// up to Z[uLast]), then the reference point's orbit from Z[uJuliaStart] to Z[uJEnd]
// (fractal.Reference.JuliaStart, len(Z) - 1). A pixel's delta starts as its z_1 minus the
// reference point (what the Mandelbrot set's dc is), at m = uJuliaStart, n = 1; dc is 0; a
// rebase, or reaching uJEnd, goes to Z[0]; the smooth value continues with uJuliaC.
#if defined(JULIA)
uniform int uJuliaStart;
uniform int uJEnd;
uniform uvec4 uJuliaC;  // the bits of c (re, im)
#endif

// The reference orbit: texel m holds Z[m] (re lo, re hi, im lo, im hi). The BLA table
// (fractal.BLA.Flat): entry e in texels 3e (Ar, Ai), 3e+1 (Br, Bi) and 3e+2 (R, 0); a
// formula's (FORMULA: fractal.FormulaBLA.Flat, 2x2 real matrices) in BLA_TEXELS = 5 texels,
// 5e (a11, a12), 5e+1 (a21, a22), 5e+2 (b11, b12), 5e+3 (b21, b22) and 5e+4 (R, 0). Each
// table is split into PAGES texture buffers of 2^uPageShift texels (the last one shorter).
uniform int uPageShift;
uniform usamplerBuffer uOrbit0;
uniform usamplerBuffer uBLA0;
#if PAGES > 1
uniform usamplerBuffer uOrbit1;
uniform usamplerBuffer uBLA1;
#endif
#if PAGES > 2
uniform usamplerBuffer uOrbit2;
uniform usamplerBuffer uBLA2;
#endif
#if PAGES > 3
uniform usamplerBuffer uOrbit3;
uniform usamplerBuffer uBLA3;
#endif

#if defined(FORMULA)
#define BLA_TEXELS 5
#else
#define BLA_TEXELS 3
#endif

// The BLA table's shape: uBLASteps is S (fractal.BLA.Steps), level l has S >> l entries from
// uBLAOffset[l] on; uBLALevels 0 means no table (plain perturbation).
uniform int uBLASteps;
uniform int uBLALevels;
uniform int uBLAOffset[32];

#if defined(ORBIT)
// orbitLimit is the iteration every BLA block must end at or before (fractal.perturbOnceCh's
// min(maxIter, limit)); orbitBlockEnd is the iteration the run's last block ended at (0:
// none yet).
int orbitLimit = 0;
int orbitBlockEnd = 0;
#endif

uvec4 orbitTexel(int i) {
#if PAGES == 1
    return texelFetch(uOrbit0, i);
#else
    int p = i >> uPageShift;
    int j = i - (p << uPageShift);
    if (p == 0) {
        return texelFetch(uOrbit0, j);
    }
#if PAGES > 2
    if (p == 2) {
        return texelFetch(uOrbit2, j);
    }
#endif
#if PAGES > 3
    if (p == 3) {
        return texelFetch(uOrbit3, j);
    }
#endif
    return texelFetch(uOrbit1, j);
#endif
}

uvec4 blaTexel(int i) {
#if PAGES == 1
    return texelFetch(uBLA0, i);
#else
    int p = i >> uPageShift;
    int j = i - (p << uPageShift);
    if (p == 0) {
        return texelFetch(uBLA0, j);
    }
#if PAGES > 2
    if (p == 2) {
        return texelFetch(uBLA2, j);
    }
#endif
#if PAGES > 3
    if (p == 3) {
        return texelFetch(uBLA3, j);
    }
#endif
    return texelFetch(uBLA1, j);
#endif
}

// trailingZeros of k > 0, from the exponent of float(k & -k), a power of two (exact): GLSL
// 3.30 has no findLSB.
int trailingZeros(int k) {
    return (floatBitsToInt(float(k & -k)) >> 23) - 127;
}

// blaDelta is the pixel's delta d as the BLA validity test reads it: |d|_1 = ad for a double
// delta, or am 2^ae for an extended one (ex: perturbexp.frag's cx).
struct blaDelta {
    bool ex;
    double am;
    int ae;
    double ad;
};

// blaValid is the BLA test |d|_1 < R of table entry e. Each program has its own: the EXPONENT
// programs' table and deltas are perturbexp.frag's, which defines it for them.
#if defined(EXPONENT)
bool blaValid(int e, blaDelta d);
#else
bool blaValid(int e, blaDelta d) {
    return d.ad < packDouble2x32(blaTexel(BLA_TEXELS * e + BLA_TEXELS - 1).xy);
}
#endif

// blaLevel is the level of the largest valid BLA block starting at m > 0 for a pixel at
// iteration n with delta d, -1 if none (fractal.BLA's lookup rule: the first valid level from
// the top one down; blaEntry(m, level) is the block's table entry). Validity only grows
// towards level 0: a block's R is at most its first half's (R = min(Rx, ...)), and the count
// and iteration limits hold for every level below one they hold for. So a binary search
// finds that level in at most 5 fetches instead of up to 27, which SIMD lanes at different m
// would all wait for.
int blaLevel(int m, int n, blaDelta d) {
    int k = m - 1;
    int top = uBLALevels - 1;
    if (k != 0) {
        top = min(trailingZeros(k), top);
    }
    int lo = -1, hi = top + 1;  // level lo is valid (-1: none yet), hi is not
    while (hi - lo > 1) {
        int l = (lo + hi) >> 1;
        int idx = k >> l;
#if defined(ORBIT)
        bool ok = idx < (uBLASteps >> l) && n + (1 << l) <= orbitLimit;
#else
        bool ok = idx < (uBLASteps >> l) && n + (1 << l) <= uMaxIter;
#endif
        if (ok) {
            ok = blaValid(uBLAOffset[l] + idx, d);
        }
        lo = ok ? l : lo;
        hi = ok ? hi : l;
    }
    return lo;
}

// blaEntry is the table entry of level l's block starting at m.
int blaEntry(int m, int l) {
    return uBLAOffset[l] + ((m - 1) >> l);
}

// A formula's steps (FORMULA), shared with perturbexp.frag: formulaDelta the plain step in
// double, formulaBlock a block of its BLA table.
#if defined(FORMULA)
// diffAbs is fractal.diffAbs: |x + d| - |x| case by case, with no cancellation.
double diffAbs(double x, double d) {
    precise double xd = x + d;
    precise double t = 2.0LF * x + d;
    if (x >= 0.0LF) {
        return xd >= 0.0LF ? d : -t;
    }
    return xd > 0.0LF ? t : -d;
}

// formulaDelta is fractal.perturbStep, operation for operation (the plain step; a BLA block
// is formulaBlock's): d <- f(Z + d)^D - f(Z)^D + dc,
// the fold applied to the delta exactly (foldDelta: W = f(Z), u = f(Z + d) - f(Z)), then the
// power's difference without cancellation (powerDelta: Horner in Z = W + u; for D = 2,
// (2W + u) u; for D = 8, the sum factored).
void formulaDelta(double zr, double zi, inout double dr, inout double di, double dcr, double dci) {
#if defined(FORMULA_BURNING_SHIP)
    double fwr = abs(zr), fwi = abs(zi), fur = diffAbs(zr, dr), fui = diffAbs(zi, di);
#elif defined(FORMULA_MANDELBAR)
    double fwr = zr, fwi = -zi, fur = dr, fui = -di;
#elif defined(FORMULA_MANDELBROT)
    double fwr = zr, fwi = zi, fur = dr, fui = di;
#else
#error "a formula kind with no fold in formulaDelta"
#endif
#if POWER == 2
    precise double tr = 2.0LF * fwr + fur;
    precise double ti = 2.0LF * fwi + fui;
    precise double nr = tr * fur - ti * fui + dcr;
    precise double ni = tr * fui + ti * fur + dci;
#elif POWER == 8
    // u S, S = (Z + W)(Z^2 + W^2)(Z^4 + W^4) with Z = W + u (powerDelta's D = 8).
    precise double hr = fwr + fur, hi = fwi + fui;  // Z = W + u
    precise double z2r = hr * hr - hi * hi, z2i = hr * hi + hi * hr;
    precise double z4r = z2r * z2r - z2i * z2i, z4i = z2r * z2i + z2i * z2r;
    precise double w2r = fwr * fwr - fwi * fwi, w2i = fwr * fwi + fwi * fwr;
    precise double w4r = w2r * w2r - w2i * w2i, w4i = w2r * w2i + w2i * w2r;
    precise double ar = hr + fwr, ai = hi + fwi;
    precise double br = z2r + w2r, bi = z2i + w2i;
    precise double cr = z4r + w4r, ci = z4i + w4i;
    precise double sr = ar * br - ai * bi, si = ar * bi + ai * br;
    precise double tr = sr * cr - si * ci, ti = sr * ci + si * cr;
    precise double nr = tr * fur - ti * fui + dcr;
    precise double ni = tr * fui + ti * fur + dci;
#else
    // u S, S = (...((Z + W) Z + W^2) Z + ...) Z + W^(D-1) with Z = W + u: Horner in Z.
    precise double hr = fwr + fur, hi = fwi + fui;  // Z = W + u
    precise double tr = hr + fwr, ti = hi + fwi;    // Z + W
    double pr = fwr, pi = fwi;                      // W^1
    for (int k = 2; k < POWER; k++) {
        precise double qr = pr * fwr - pi * fwi;
        precise double qi = pr * fwi + pi * fwr;
        pr = qr;
        pi = qi;
        precise double sr = tr * hr - ti * hi + pr;
        precise double si = tr * hi + ti * hr + pi;
        tr = sr;
        ti = si;
    }
    precise double nr = tr * fur - ti * fui + dcr;
    precise double ni = tr * fui + ti * fur + dci;
#endif
    dr = nr;
    di = ni;
}
#endif

#if defined(FORMULA)
// formulaBlock applies the formula's BLA block e (fractal.perturbFormulaLoop's, operation for
// operation): d <- A d + B dc with A and B real 2x2 matrices, and with DERIV the Jacobian
// J <- A J + ws B (fractal.perturbFormulaLoopDE; its first column in (wr, wi), the second in
// jb, jd).
void formulaBlock(int e, inout double dr, inout double di, double dcr, double dci, inout double wr, inout double wi, double ws) {
    int t = BLA_TEXELS * e;
    uvec4 t0 = blaTexel(t), t1 = blaTexel(t + 1), t2 = blaTexel(t + 2), t3 = blaTexel(t + 3);
    double a11 = packDouble2x32(t0.xy), a12 = packDouble2x32(t0.zw);
    double a21 = packDouble2x32(t1.xy), a22 = packDouble2x32(t1.zw);
    double b11 = packDouble2x32(t2.xy), b12 = packDouble2x32(t2.zw);
    double b21 = packDouble2x32(t3.xy), b22 = packDouble2x32(t3.zw);
    precise double nr = a11 * dr + a12 * di + b11 * dcr + b12 * dci;
    precise double ni = a21 * dr + a22 * di + b21 * dcr + b22 * dci;
    dr = nr;
    di = ni;
#if defined(JACOBIAN)
    precise double na = a11 * wr + a12 * wi + b11 * ws;
    precise double nb = a11 * jb + a12 * jd + b12 * ws;
    precise double nc = a21 * wr + a22 * wi + b21 * ws;
    precise double nd = a21 * jb + a22 * jd + b22 * ws;
    wr = na;
    jb = nb;
    wi = nc;
    jd = nd;
#endif
}
#endif

// The escape test on the circle (fractal's escring.go): |z|^2 > R^2 for z = Z_m + d rounds
// the answer away where |Z_m| is R and d is tiny (the tip c = -2: Z = 2, 2, ...). The loops
// compare with R^2 (1 - 2^-36) and decide the pixels past it with escapeExact, as the CPU.
double escLo() {
    return packDouble2x32(uvec2(0xfffe0000u, 0x3fefffffu));  // 1 - 2^-36
}

double escHi() {
    return packDouble2x32(uvec2(0x00010000u, 0x3ff00000u));  // 1 + 2^-36
}

// sqErr is the exact error of p = x*x, x*x - p (Dekker's product with Veltkamp's split:
// exact without relying on fma's fusing).
double sqErr(double x, double p) {
    precise double c = 134217729.0LF * x;  // 2^27 + 1
    precise double xh = c - (c - x);
    precise double xl = x - xh;
    precise double e = ((xh * xh - p) + 2.0LF * xh * xl) + xl * xl;
    return e;
}

// twoSumErr is the exact error of s = a + b (Knuth's TwoSum).
double twoSumErr(double a, double b, double s) {
    precise double bb = s - a;
    precise double t = (a - (s - bb)) + (b - bb);
    return t;
}

// escResidual is fractal.escResidual: x^2 + y^2 - r2, exact where it is 0.
double escResidual(double x, double y, double r2) {
    precise double p = x * x;
    precise double q = y * y;
    precise double s = p + q;
    precise double u = s - r2;
    precise double e = u + (twoSumErr(p, q, s) + twoSumErr(s, -r2, u) + sqErr(x, p) + sqErr(y, q));
    return e;
}

// escapeExact is fractal.escapeExact: |Z + d|^2 > r2 for Z = (x, y), d = (dr, di).
bool escapeExact(double x, double y, double dr, double di, double r2) {
    double e = escResidual(x, y, r2);
    if (e == 0.0LF && abs(dr) + abs(di) < packDouble2x32(uvec2(0u, 0x26f00000u))) {  // 2^-400
        double s = packDouble2x32(uvec2(0u, 0x65700000u));  // 2^600
        precise double sr = dr * s, si = di * s;
        precise double v = 2.0LF * s * (x * sr + y * si) + (sr * sr + si * si);
        return v > 0.0LF;
    }
    precise double v = e + (2.0LF * (x * dr + y * di) + (dr * dr + di * di));
    return v > 0.0LF;
}

// escapes is fractal.escapes: z = Z + d past the radius sqrt(r2), z2 its |z|^2 as the loop
// computed it; called only where z2 > r2 escLo().
bool escapes(double x, double y, double dr, double di, double z2, double r2) {
    return z2 > r2 * escHi() || escapeExact(x, y, dr, di, r2);
}

#if !defined(EXPONENT)
// The double-only perturbation (EXPONENT programs add perturbexp.frag instead: the same
// tables and lookups, with extended exponents).

// pixelDc is the pixel's dc, as fractal.Frame.Delta computes it.
void pixelDc(out double dcr, out double dci) {
    dvec2 off = pixelOffsetD();
    double dRe = packDouble2x32(uD.xy), dIm = packDouble2x32(uD.zw);
    double spacing = packDouble2x32(uSpacing);
    precise double r = dRe + off.x * spacing;
    precise double i = dIm + off.y * spacing;
    dcr = r;
    dci = i;
}

// juliaStart is fractal.Reference.juliaStart: a Julia pixel's first value z_1 = Z[uJuliaStart]
// + d0 (d0 in dr, di) checked before any step. It returns true when |z_1| > 2 (escape count
// 1, z_1 in ezr, ezi), else sets m and the delta: rebased to Z[0] (d = z_1, m = 0) when z_1 is
// nearer 0 than d0 or the reference point's orbit ends there, else m = uJuliaStart.
#if defined(JULIA)
bool juliaStart(inout double dr, inout double di, out int m, out double ezr, out double ezi) {
    uvec4 zt = orbitTexel(uJuliaStart);
    precise double zr = packDouble2x32(zt.xy) + dr;
    precise double zi = packDouble2x32(zt.zw) + di;
    precise double z2 = zr * zr + zi * zi;
    ezr = zr;
    ezi = zi;
    m = uJuliaStart;
#if defined(ORBIT)
    ringPut(zr, zi);  // z_1
    double r2 = escape2();
#else
    double r2 = 4.0LF;
#endif
    if (z2 > r2 * escLo() && escapes(packDouble2x32(zt.xy), packDouble2x32(zt.zw), dr, di, z2, r2)) {
        return true;
    }
    precise double d2 = dr * dr + di * di;
    bool rebase = z2 < d2 || m == uJEnd;
    double tiny = packDouble2x32(uvec2(0u, 0x07B00000u));
    if (!rebase && z2 < tiny) {
        double scale = packDouble2x32(uvec2(0u, 0x65700000u));
        precise double sr = zr * scale, si = zi * scale, sdr = dr * scale, sdi = di * scale;
        precise double sz2 = sr * sr + si * si;
        precise double sd2 = sdr * sdr + sdi * sdi;
        rebase = sz2 < sd2;
    }
    if (rebase) {
        dr = zr;
        di = zi;
        m = 0;
    }
    return false;
}
#endif



// perturb runs at most `budget` steps (a plain step or a BLA block each) of the pixel's
// perturbation from state (d, m, n), exactly as fractal.PerturbEscape does. A Julia pixel's
// state n = 0 (its start: d = d0) is juliaStart's first; its derivative starts at the spacing
// and adds nothing (ws = 0). It returns n when
// |z_n| > 2 (nu then holds the smooth value), -1 when n reached uMaxIter (black), and 0 when
// the budget ran out first. Every step advances n by at least 1, so uMaxIter steps finish
// every pixel. Compiled with DERIV (for the colourings that read it) it carries the derivative w
// (fractal.PerturbEscapeDE: w <- 2 (Z_m + d) w + spacing for a plain step, w <- A w + B
// spacing for a BLA block) and on escape gives the distance estimate de and the normal u.
int perturb(double dcr, double dci, inout double dr, inout double di, inout int m, inout int n,
            int budget, out float nu, inout double wr, inout double wi, out float de, out vec2 u) {
    nu = 0.0;
    de = 0.0;
    u = vec2(0.0);
    double sp = packDouble2x32(uSpacing);
    bool escaped = false;
    double ezr = 0.0LF, ezi = 0.0LF;
#if defined(JULIA)
    double ws = 0.0LF;
    if (n == 0) {
        escaped = juliaStart(dr, di, m, ezr, ezi);
        n = 1;
        wr = sp;
        wi = 0.0LF;
#if defined(JACOBIAN)
        jb = 0.0LF;  // J = spacing I
        jd = sp;
#endif
        budget = escaped ? 0 : budget;
    }
#else
    double ws = sp;
#endif
    // 2^-900 and 2^600, built from their bits: the rebasing test's scale for tiny values.
    double tiny = packDouble2x32(uvec2(0u, 0x07B00000u));
    double scale = packDouble2x32(uvec2(0u, 0x65700000u));
#if defined(ORBIT)
    double bail2 = escape2();
#else
    double bail2 = 4.0LF;
#endif
    double bail2Lo = bail2 * escLo();
    // Z[m], fetched once per step: the escape test's fetch serves the next plain step.
    double zmr = 0.0LF, zmi = 0.0LF;
    if (m > 0) {
        uvec4 zt = orbitTexel(m);
        zmr = packDouble2x32(zt.xy);
        zmi = packDouble2x32(zt.zw);
    }
    for (int s = 0; s < budget && n < uMaxIter; s++) {
        bool jumped = false;
        if (uBLALevels > 0 && m > 0) {
            int lo = blaLevel(m, n, blaDelta(false, 0.0LF, 0, abs(dr) + abs(di)));
#if defined(FORMULA)
            if (lo >= 0) {
                formulaBlock(blaEntry(m, lo), dr, di, dcr, dci, wr, wi, ws);
                m += 1 << lo;
                n += 1 << lo;
                jumped = true;
            }
#else
            if (lo >= 0) {
                int e = 3 * blaEntry(m, lo);
                uvec4 ta = blaTexel(e);
                uvec4 tb = blaTexel(e + 1);
                double ar = packDouble2x32(ta.xy), ai = packDouble2x32(ta.zw);
                double br = packDouble2x32(tb.xy), bi = packDouble2x32(tb.zw);
                precise double nr = ar * dr - ai * di + br * dcr - bi * dci;
                precise double ni = ar * di + ai * dr + br * dci + bi * dcr;
                dr = nr;
                di = ni;
#if defined(DERIV)
                precise double nwr = ar * wr - ai * wi + br * ws;
                precise double nwi = ar * wi + ai * wr + bi * ws;
                wr = nwr;
                wi = nwi;
#endif
                m += 1 << lo;
                n += 1 << lo;
                jumped = true;
#if defined(ORBIT)
                orbitBlockEnd = n;
#endif
            }
#endif
        }
        if (!jumped) {
#if defined(DERIV)
            // w <- 2 z w + spacing, z = Z_m + d before the step (a formula's Jacobian:
            // jacStep at z, as fractal.perturbFormulaLoopDE)
            precise double fr = zmr + dr;
            precise double fi = zmi + di;
#if defined(JACOBIAN)
            jacStep(fr, fi, wr, jb, wi, jd, ws);
#else
            precise double nwr = 2.0LF * (fr * wr - fi * wi) + ws;
            precise double nwi = 2.0LF * (fr * wi + fi * wr);
            wr = nwr;
            wi = nwi;
#endif
#endif
#if defined(FORMULA)
            formulaDelta(zmr, zmi, dr, di, dcr, dci);
#else
            // d <- (2 Z + d) d + dc
            precise double tr = 2.0LF * zmr + dr;
            precise double ti = 2.0LF * zmi + di;
            precise double nr = tr * dr - ti * di + dcr;
            precise double ni = tr * di + ti * dr + dci;
            dr = nr;
            di = ni;
#endif
            m++;
            n++;
        }
        uvec4 zt = orbitTexel(m);
        zmr = packDouble2x32(zt.xy);
        zmi = packDouble2x32(zt.zw);
        precise double zr = zmr + dr;
        precise double zi = zmi + di;
        precise double z2 = zr * zr + zi * zi;
#if defined(ORBIT)
        ringPut(zr, zi);  // a block's end too: the run is done again if it is among the last K
#endif
        if (z2 > bail2Lo && escapes(zmr, zmi, dr, di, z2, bail2)) {
            escaped = true;
            ezr = zr;
            ezi = zi;
            break;  // the smooth value after the loop: SIMD CPUs run an if's body for every lane
        }
        precise double d2 = dr * dr + di * di;
        bool rebase = z2 < d2;
#if defined(JULIA)
        rebase = rebase || m == uJEnd;  // the end of the reference point's orbit
#endif
        if (!rebase && z2 < tiny) {
            precise double sr = zr * scale, si = zi * scale, sdr = dr * scale, sdi = di * scale;
            precise double sz2 = sr * sr + si * si;
            precise double sd2 = sdr * sdr + sdi * sdi;
            rebase = sz2 < sd2;
        }
        if (!rebase && m == uLast) {
            // A periodic reference goes on one period back (fractal.Reference.Period): the
            // values there equal Z[m], so zmr and zmi stand.
            rebase = uPeriod == 0;
            m -= uPeriod;
        }
        if (rebase) {
            dr = zr;
            di = zi;
            m = 0;
            zmr = 0.0LF;  // Z[0]
            zmi = 0.0LF;
        }
    }
    if (escaped) {
#if defined(JULIA)
        double cr = packDouble2x32(uJuliaC.xy), ci = packDouble2x32(uJuliaC.zw);
#else
        precise double cr = packDouble2x32(uRefC.xy) + dcr;
        precise double ci = packDouble2x32(uRefC.zw) + dci;
#endif
#if defined(DERIV)
        nu = escapeSmoothDE(cr, ci, ezr, ezi, wr, wi, ws, n, de, u);
#else
        nu = escapeSmooth(cr, ci, ezr, ezi, n);
#endif
        return n;
    }
    return n >= uMaxIter ? -1 : 0;
}

#if defined(STAGE_ITERATE)
// Multi-pass state (common.glsl): texture 0 holds d (re lo, re hi, im lo, im hi), texture 1
// (m, n, 0, 0), texture 3 the derivative; a pixel still iterating keeps (0, 0, 0, 0) in
// texture 2. A pass runs
// uK1 - uK0 + 1 steps: passes count steps, not iterations, so that a pass's cost is bounded
// however far the BLA jumps.

#if defined(ORBIT)
// The orbit path in passes: texture 1 holds (m, n, orbitLimit, orbitBlockEnd); the fifth and
// sixth textures a checkpoint, the state (d; m, n) K steps before the previous pass's end (the
// Go side makes every pass at least K steps long), or the run's start after a run again; a
// finished pixel's fifth is (T, STRIPE, 0, 0) as float bits. An orbit that escapes with fewer
// than K iterations in this pass runs again from the checkpoint to record the iterates before
// (the same steps: the same limit, the same table); one whose last K iterates a block ended
// in starts again, with the limit lowered, in the next pass.
#endif

void main() {
    double dcr, dci;
    pixelDc(dcr, dci);
    double dr = 0.0LF, di = 0.0LF, wr = 0.0LF, wi = 0.0LF;
    int m = 0, n = 0;
#if defined(JULIA)
    // The pixel's delta d0 is what the Mandelbrot set's dc is; its dc is 0.
    dr = dcr;
    di = dci;
    dcr = 0.0LF;
    dci = 0.0LF;
#endif
#if defined(ORBIT)
    double d0r = dr, d0i = di;
    double cdr = dr, cdi = di;  // the checkpoint; in the first pass the start
    int cm = 0, cn = 0;
    orbitLimit = uMaxIter;
    orbitBlockEnd = 0;
#endif
    if (uK0 > 1) {
        ivec2 t = ivec2(gl_FragCoord.xy);
        if (carryFinished(texelFetch(uState2, t, 0))) {
            return;
        }
        uvec4 d = texelFetch(uState0, t, 0);
        dr = packDouble2x32(d.xy);
        di = packDouble2x32(d.zw);
        uvec4 mn = texelFetch(uState1, t, 0);
        m = int(mn.x);
        n = int(mn.y);
#if defined(ORBIT)
        orbitLimit = int(mn.z);
        orbitBlockEnd = int(mn.w);
        uvec4 c4 = texelFetch(uState4, t, 0);
        cdr = packDouble2x32(c4.xy);
        cdi = packDouble2x32(c4.zw);
        uvec4 c5 = texelFetch(uState5, t, 0);
        cm = int(c5.x);
        cn = int(c5.y);
#endif
#if defined(DERIV)
        unpackW(texelFetch(uState3, t, 0), wr, wi);
#endif
    }
    float nu, de;
    vec2 u;
#if defined(ORBIT)
    int n0 = n;
    int budget = uK1 - uK0 + 1;
    int head = max(budget - uStripeK, 0);
    int r = perturb(dcr, dci, dr, di, m, n, head, nu, wr, wi, de, u);
    double ndr = dr, ndi = di;  // the next pass's checkpoint
    int nm = m, nn = n;
    if (r == 0) {
        r = perturb(dcr, dci, dr, di, m, n, budget - head, nu, wr, wi, de, u);
    }
    float chT = 0.0, chS = 0.0;
    if (r > 0 && orbitBlockEnd >= max(1, r - uStripeK + 1)) {
        // A block ended among the last K iterates: start again with blocks up to N - K.
        orbitLimit = min(uMaxIter, r - uStripeK);
        orbitBlockEnd = 0;
        dr = d0r;
        di = d0i;
        wr = 0.0LF;
        wi = 0.0LF;
        m = 0;
        n = 0;
        ndr = d0r;
        ndi = d0i;
        nm = 0;
        nn = 0;
        r = 0;
    } else if (r > 0) {
        if (uK0 > 1 && r - n0 < uStripeK) {
            // Fewer than K iterates in this pass's ring: run again from the checkpoint.
            double rdr = cdr, rdi = cdi, rwr = 0.0LF, rwi = 0.0LF;
            int rm = cm, rn = cn;
            float rnu, rde;
            vec2 ru;
            orbitSlot = 0;
            perturb(dcr, dci, rdr, rdi, rm, rn, uMaxIter, rnu, rwr, rwi, rde, ru);
        }
        orbitChannels(r, chT, chS);
    }
    oState4 = r != 0 ? uvec4(floatBitsToUint(chT), floatBitsToUint(chS), 0u, 0u) : uvec4(unpackDouble2x32(ndr), unpackDouble2x32(ndi));
    oState5 = uvec4(uint(nm), uint(nn), 0u, 0u);
    oState0 = uvec4(unpackDouble2x32(dr), unpackDouble2x32(di));
    oState1 = uvec4(uint(m), uint(n), uint(orbitLimit), uint(orbitBlockEnd));
#else
    int r = perturb(dcr, dci, dr, di, m, n, uK1 - uK0 + 1, nu, wr, wi, de, u);
#endif
#if !defined(ORBIT)
    oState0 = uvec4(unpackDouble2x32(dr), unpackDouble2x32(di));
    oState1 = uvec4(uint(m), uint(n), 0u, 0u);
#endif
    if (r > 0) {
        oState2 = finishedState(2u, nu);
        oState3 = finishedShading(de, u);
    } else if (r < 0) {
        oState2 = finishedState(1u, 0.0);
        oState3 = finishedShading(0.0, vec2(0.0));
    } else {
        oState2 = uvec4(0u);
        oState3 = packW(wr, wi);
    }
}

#else
out vec4 fragColor;

void main() {
    double dcr, dci;
    pixelDc(dcr, dci);
    double dr = 0.0LF, di = 0.0LF, wr = 0.0LF, wi = 0.0LF;
    int m = 0, n = 0;
#if defined(JULIA)
    // The pixel's delta d0 is what the Mandelbrot set's dc is; its dc is 0.
    dr = dcr;
    di = dci;
    dcr = 0.0LF;
    dci = 0.0LF;
#endif
    float nu, de;
    vec2 u;
#if defined(ORBIT)
    // Run again while a block ended among the last K iterates (fractal.perturbCh): each run
    // lowers the limit, and a limit below 1 allows no block (the bound on the runs is only
    // for the compiler).
    double dr0 = dr, di0 = di;
    int r = 0;
    orbitLimit = uMaxIter;
    for (int run = 0; run <= uMaxIter; run++) {
        dr = dr0;
        di = di0;
        wr = 0.0LF;
        wi = 0.0LF;
        m = 0;
        n = 0;
        orbitSlot = 0;
        orbitBlockEnd = 0;
        r = perturb(dcr, dci, dr, di, m, n, uMaxIter, nu, wr, wi, de, u);
        if (r <= 0 || orbitBlockEnd < max(1, r - uStripeK + 1)) {
            break;
        }
        orbitLimit = min(uMaxIter, r - uStripeK);
    }
    float t = 0.0, stripe = 0.0;
    if (r > 0) {
        orbitChannels(r, t, stripe);
    }
    fragColor = r > 0 ? vec4(shadeOrbit(nu, de, u, t, stripe) / 255.0, 1.0) : vec4(0.0, 0.0, 0.0, 1.0);
#else
    int r = perturb(dcr, dci, dr, di, m, n, uMaxIter, nu, wr, wi, de, u);
    fragColor = r > 0 ? vec4(shade(nu, de, u) / 255.0, 1.0) : vec4(0.0, 0.0, 0.0, 1.0);
#endif
}
#endif
#endif  // !EXPONENT
