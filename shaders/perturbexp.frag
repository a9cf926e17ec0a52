// perturbexp.frag: perturbation past float64's exponent range, the GPU form of
// fractal.PerturbEscapeExp (a PerturbationExp frame: pixel spacing below about 1e-305). It
// comes after common.glsl and perturb.frag (whose orbit and table fetches and BLA lookup it
// uses) in the programs compiled with EXPONENT; with DERIV its one perturbExp carries the
// derivative too (fractal.PerturbEscapeDEExp). With a formula's defines (FORMULA, common.glsl)
// it takes the formula's steps (formulaStepCx in cx, perturb.frag's formulaDelta in double:
// fractal.PerturbEscapeFormulaExp) and the blocks of its extended BLA table (formulaBlockCx,
// formulaBlock64: fractal.FormulaBLAExp), and with DERIV its Jacobian (jacStepX, jacBlock:
// fractal.PerturbEscapeFormulaDEExp) in place of w.
//
// Deltas and BLA coefficients are complex numbers with one shared integer exponent, cx:
// (re + i im) 2^e, normalized after each operation so that max(|re|, |im|) lies in [0.5, 1).
// GLSL 3.30 has no frexp or ldexp: the exponent is read from the double's bits
// (unpackDouble2x32) and powers of two are built from theirs (packDouble2x32), so every
// scaling is exact, as on the CPU. A delta stays in cx only while it is tiny: from |d| >=
// 2^-900 the pixel continues with plain double steps (perturb.frag's arithmetic) and returns
// to cx below 2^-950, at the same points and by the same operations, in the same order, as
// the CPU, so that both give the same escape count and smooth value.
//
// Tables (perturb.frag's texture buffers): the orbit as there; the BLA table
// (fractal.BLAExp.Flat) 4 texels an entry: (Ar, Ai), (Br, Bi), (Rm, R64), (Ae, Be, Re, 0); a
// formula's (FORMULA: fractal.FormulaBLAExp.Flat) FBLAX_TEXELS = 10: the extended A's
// mantissas (a11, a12), (a21, a22), B's (b11, b12), (b21, b22), then (Rm, R64), the float64
// form's A and B' (B 2^uBLAScale) in four more as A and B, and (Ae, Be, Re, 0).
// The orbit values that float64 cannot hold (fractal.Reference.Tiny) in uTiny, 2 texels each,
// sorted by index: (m, e, 0, 0), (re, im).

// dc of the pixel = uDX + pixelOffset() * uSpacingX (fractal.Frame.DeltaExp), each an
// extended value m 2^e: the mantissas' bits and the exponents.
uniform uvec4 uDX;
uniform ivec2 uDXe;
uniform uvec2 uSpacingX;
uniform int uSpacingXe;
uniform usamplerBuffer uTiny;
uniform int uTinyCount;
uniform int uBLAScale;  // a formula's table: the exponent of its float64 form's B'

// The texels of an extended BLA entry: its count, its (Rm, R64) texel and its exponents'.
#if defined(FORMULA)
#define BLAX_TEXELS 10
#define BLAX_R 4
#define BLAX_EXP 9
#else
#define BLAX_TEXELS 4
#define BLAX_R 2
#define BLAX_EXP 3
#endif

// ZERO_EXP is a zero cx's exponent, far below any other (fractal's cxZeroExp is lower still;
// both only have to lose every comparison); TO_DOUBLE the exponent above which a delta
// continues in double.
const int ZERO_EXP = -1073741824;
const int TO_DOUBLE = -900;

// WDERIV: the Mandelbrot set's derivative w, carried beside the delta (in cx while either is
// tiny); a formula's derivative is its Jacobian with an exponent of its own (JACOBIAN: jx).
#if defined(DERIV) && !defined(FORMULA)
#define WDERIV 1
#endif

struct cx {
    double re;
    double im;
    int e;
};

// pow2 is 2^k for -1022 <= k <= 1023, from its bits.
double pow2(int k) {
    return packDouble2x32(uvec2(0u, uint(k + 1023) << 20));
}

// biasedExp is the exponent field of a double's bits (0 for zero and the subnormals).
int biasedExp(double a) {
    return int((unpackDouble2x32(a).y >> 20) & 0x7ffu);
}

// ldexpD is m 2^k rounded once, as Go's math.Ldexp (for |m| not far below 1; past 2^2000
// it overflows as Ldexp does).
double ldexpD(double m, int k) {
    if (k > 1000) {
        return (m * pow2(1000)) * pow2(min(k, 2000) - 1000);
    }
    if (k >= -960) {
        return m * pow2(k);
    }
    if (k < -1200) {
        return m * 0.0LF;
    }
    return (m * pow2(k + 200)) * pow2(-200);
}

// norm scales z so that max(|re|, |im|) lies in [0.5, 1) (exactly: powers of two).
cx norm(cx z) {
    double a = max(abs(z.re), abs(z.im));
    if (a == 0.0LF) {
        return cx(0.0LF, 0.0LF, ZERO_EXP);
    }
    int eb = biasedExp(a);
    if (eb == 0) {
        // A subnormal: scale up first (exact).
        double s = pow2(64);
        z.re *= s;
        z.im *= s;
        z.e -= 64;
        eb = biasedExp(a * s);
    } else if (eb > 2022) {
        double s = pow2(-64);
        z.re *= s;
        z.im *= s;
        z.e += 64;
        eb -= 64;
    }
    int k = eb - 1022;
    double s = pow2(-k);
    return cx(z.re * s, z.im * s, z.e + k);
}

cx cxFrom(double re, double im) {
    return norm(cx(re, im, 0));
}

cx cxMul(cx a, cx b) {
    precise double re = a.re * b.re - a.im * b.im;
    precise double im = a.re * b.im + a.im * b.re;
    return norm(cx(re, im, a.e + b.e));
}

cx cxAdd(cx a, cx b) {
    if (a.e < b.e) {
        cx t = a;
        a = b;
        b = t;
    }
    int d = a.e - b.e;
    if (d > 110) {
        return a;
    }
    double s = pow2(-d);
    precise double re = a.re + b.re * s;
    precise double im = a.im + b.im * s;
    return norm(cx(re, im, a.e));
}

// float64s is z rounded to double (0 below its range).
void float64s(cx z, out double re, out double im) {
    if (z.e < -1100) {
        re = 0.0LF;
        im = 0.0LF;
    } else {
        re = ldexpD(z.re, z.e);
        im = ldexpD(z.im, z.e);
    }
}

// lessExp reports whether am 2^ae < bm 2^be for non-negative mantissas below 4.
bool lessExp(double am, int ae, double bm, int be) {
    if (bm == 0.0LF) {
        return false;
    }
    if (am == 0.0LF) {
        return true;
    }
    int d = ae - be;
    if (d > 8) {
        return false;
    }
    if (d < -8) {
        return true;
    }
    precise double l = am * pow2(d);
    return l < bm;
}

// absLess reports whether |a| < |b|.
bool absLess(cx a, cx b) {
    precise double ma = a.re * a.re + a.im * a.im;
    precise double mb = b.re * b.re + b.im * b.im;
    if (mb == 0.0LF) {
        return false;
    }
    if (ma == 0.0LF) {
        return true;
    }
    return lessExp(ma, 2 * a.e, mb, 2 * b.e);
}

// zcx is Z[m] as a cx, given its double rounding (zr, zi): the exact value from uTiny where
// the double is that small and the orbit kept it (fractal.Reference.zcx).
cx zcx(int m, double zr, double zi) {
    if (abs(zr) + abs(zi) < pow2(-1000)) {
        int lo = 0, hi = uTinyCount;
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            uvec4 t = texelFetch(uTiny, 2 * mid);
            int tm = int(t.x);
            if (tm == m) {
                uvec4 v = texelFetch(uTiny, 2 * mid + 1);
                return cx(packDouble2x32(v.xy), packDouble2x32(v.zw), int(t.y));
            }
            if (tm < m) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
    }
    return cxFrom(zr, zi);
}

// An extended real m 2^e (fractal.Exp: 0.5 <= |m| < 1, or m = e = 0) and its operations,
// for the pixel's dc as fractal.Frame.DeltaExp computes it.
struct xp {
    double m;
    int e;
};

xp makeExp(double m, int e) {
    if (m == 0.0LF) {
        return xp(m, 0);
    }
    int k = biasedExp(m) - 1022;
    return xp(m * pow2(-k), e + k);
}

xp expAdd(xp x, xp y) {
    if (x.m == 0.0LF) {
        return y;
    }
    if (y.m == 0.0LF) {
        return x;
    }
    if (x.e < y.e) {
        xp t = x;
        x = y;
        y = t;
    }
    int d = x.e - y.e;
    if (d > 110) {
        return x;
    }
    precise double s = x.m + y.m * pow2(-d);
    return makeExp(s, x.e);
}

// cxFromExp is (re + i im) as a cx (fractal.cxFromExp).
cx cxFromExp(xp re, xp im) {
    int e = max(re.e, im.e);
    if (re.m == 0.0LF) {
        e = im.e;
    } else if (im.m == 0.0LF) {
        e = re.e;
    }
    return norm(cx(ldexpD(re.m, re.e - e), ldexpD(im.m, im.e - e), e));
}

#if defined(FORMULA)
// A formula's step in cx (fractal/perturb_formula_exp.go, operation for operation): the fold
// applied to the delta exactly (foldDeltaCx), then the power's difference (powerDeltaCx); a
// block of its extended BLA table on a cx delta (formulaBlockCx) or a double one
// (formulaBlock64). With DERIV its Jacobian (JACOBIAN) as a jx, the four entries' mantissas
// with one exponent (jacStepX, and jacBlock through a block).

// foldSign is fractal.foldSign: the sign of a reference part x 2^e, ok where it is above
// tinyRef (0.5 2^-799), which a delta below 2^-900 cannot change.
double foldSign(double x, int e, out bool ok) {
    ok = !(x == 0.0LF || !lessExp(0.5LF, -799, abs(x), e));
    return x < 0.0LF ? -1.0LF : 1.0LF;
}

// diffAbsExp is fractal.diffAbsExp: diffAbs (|x + d| - |x|, case by case) in xp.
xp diffAbsExp(xp x, xp d) {
    xp s = expAdd(x, d);
    xp t = expAdd(x.m == 0.0LF ? x : xp(x.m, x.e + 1), d);  // 2x + d
    if (x.m >= 0.0LF) {
        return s.m >= 0.0LF ? d : xp(-t.m, t.e);
    }
    return s.m > 0.0LF ? t : xp(-d.m, d.e);
}

// foldDeltaCx is fractal.foldDeltaCx: W = f(Z) and u = f(Z + d) - f(Z) for the cx reference
// value z and delta d.
void foldDeltaCx(cx z, cx d, out cx w, out cx u) {
#if defined(FORMULA_BURNING_SHIP)
    w = cx(abs(z.re), abs(z.im), z.e);
    bool okr, oki;
    double sr = foldSign(z.re, z.e, okr), si = foldSign(z.im, z.e, oki);
    if (okr && oki) {
        u = cx(sr * d.re, si * d.im, d.e);
    } else {
        u = cxFromExp(diffAbsExp(makeExp(z.re, z.e), makeExp(d.re, d.e)), diffAbsExp(makeExp(z.im, z.e), makeExp(d.im, d.e)));
    }
#elif defined(FORMULA_MANDELBAR)
    w = cx(z.re, -z.im, z.e);
    u = cx(d.re, -d.im, d.e);
#elif defined(FORMULA_MANDELBROT)
    w = z;
    u = d;
#else
#error "a formula kind with no fold in foldDeltaCx"
#endif
}

// formulaStepCx is fractal.Reference.stepFormulaCx: the delta after one step from d at the
// reference value Z[m] (zmr, zmi its double rounding) in cx, powerDeltaCx's Horner in
// Z = W + u: u S, S = (...((Z + W) Z + W^2) Z + ...) Z + W^(D-1) (for D = 8, (Z + W)(Z^2 +
// W^2)(Z^4 + W^4)), plus dc.
cx formulaStepCx(int m, double zmr, double zmi, cx d, cx dc) {
    cx w, u;
    foldDeltaCx(zcx(m, zmr, zmi), d, w, u);
    cx z = cxAdd(w, u);
#if POWER == 8
    // S = (Z + W)(Z^2 + W^2)(Z^4 + W^4).
    cx z2 = cxMul(z, z), w2 = cxMul(w, w);
    cx t = cxMul(cxMul(cxAdd(z, w), cxAdd(z2, w2)), cxAdd(cxMul(z2, z2), cxMul(w2, w2)));
#else
    cx t = cxAdd(z, w), p = w;
    for (int k = 2; k < POWER; k++) {
        p = cxMul(p, w);
        t = cxAdd(cxMul(t, z), p);
    }
#endif
    return cxAdd(cxMul(t, u), dc);
}

// formulaBlockCx is fractal.fblaExpEntry.applyCx: block e's d' = A d + B dc for a cx delta d.
cx formulaBlockCx(int e, cx d, cx dc) {
    int t = BLAX_TEXELS * e;
    uvec4 t0 = blaTexel(t), t1 = blaTexel(t + 1), te = blaTexel(t + BLAX_EXP);
    double a11 = packDouble2x32(t0.xy), a12 = packDouble2x32(t0.zw);
    double a21 = packDouble2x32(t1.xy), a22 = packDouble2x32(t1.zw);
    precise double ar = a11 * d.re + a12 * d.im;
    precise double ai = a21 * d.re + a22 * d.im;
    cx ad = norm(cx(ar, ai, int(te.x) + d.e));
    if (dc.re == 0.0LF && dc.im == 0.0LF) {
        return ad;
    }
    uvec4 t2 = blaTexel(t + 2), t3 = blaTexel(t + 3);
    double b11 = packDouble2x32(t2.xy), b12 = packDouble2x32(t2.zw);
    double b21 = packDouble2x32(t3.xy), b22 = packDouble2x32(t3.zw);
    precise double br = b11 * dc.re + b12 * dc.im;
    precise double bi = b21 * dc.re + b22 * dc.im;
    return cxAdd(ad, norm(cx(br, bi, int(te.y) + dc.e)));
}

// formulaBlock64 is fractal.perturbFormulaLoopExp's block on a double delta: block e's float64
// form, d' = A d + B' dcs with dcs = dc 2^-uBLAScale (dsr, dsi).
void formulaBlock64(int e, inout double dr, inout double di, double dsr, double dsi) {
    int t = BLAX_TEXELS * e + 5;
    uvec4 t0 = blaTexel(t), t1 = blaTexel(t + 1), t2 = blaTexel(t + 2), t3 = blaTexel(t + 3);
    double a11 = packDouble2x32(t0.xy), a12 = packDouble2x32(t0.zw);
    double a21 = packDouble2x32(t1.xy), a22 = packDouble2x32(t1.zw);
    double b11 = packDouble2x32(t2.xy), b12 = packDouble2x32(t2.zw);
    double b21 = packDouble2x32(t3.xy), b22 = packDouble2x32(t3.zw);
    precise double nr = a11 * dr + a12 * di + b11 * dsr + b12 * dsi;
    precise double ni = a21 * dr + a22 * di + b21 * dsr + b22 * dsi;
    dr = nr;
    di = ni;
}

#if defined(JACOBIAN)
// jx is fractal.jx: a scaled Jacobian [[a, b], [c, d]] 2^e, max |entry| in [0.5, 1) (or all
// zero, e ZERO_EXP). The pixel's is jac (one a fragment: the formulas have no orbit path, so
// no run again needs another).
struct jx {
    double a;
    double b;
    double c;
    double d;
    int e;
};
jx jac;

// jxNorm is fractal.jx.norm: the mantissas rescaled (exactly, as norm scales a cx).
jx jxNorm(jx j) {
    double a = max(max(abs(j.a), abs(j.b)), max(abs(j.c), abs(j.d)));
    if (a == 0.0LF) {
        return jx(0.0LF, 0.0LF, 0.0LF, 0.0LF, ZERO_EXP);
    }
    if (isinf(a) || isnan(a)) {
        return j;
    }
    int eb = biasedExp(a);
    if (eb == 0) {
        double s = pow2(64);
        j = jx(j.a * s, j.b * s, j.c * s, j.d * s, j.e - 64);
        eb = biasedExp(a * s);
    } else if (eb > 2022) {
        double s = pow2(-64);
        j = jx(j.a * s, j.b * s, j.c * s, j.d * s, j.e + 64);
        eb -= 64;
    }
    int k = eb - 1022;
    double s = pow2(-k);
    return jx(j.a * s, j.b * s, j.c * s, j.d * s, j.e + k);
}

// jxAddDiag is fractal.jx.addDiag: j + s I.
jx jxAddDiag(jx j, xp s) {
    if (s.m == 0.0LF) {
        return j;
    }
    int d = j.e - s.e;
    if (j.a == 0.0LF && j.b == 0.0LF && j.c == 0.0LF && j.d == 0.0LF || d < -110) {
        return jxNorm(jx(s.m, 0.0LF, 0.0LF, s.m, s.e));
    }
    if (d > 110) {
        return j;
    }
    double v = ldexpD(s.m, -d);
    precise double na = j.a + v;
    precise double nd = j.d + v;
    return jxNorm(jx(na, j.b, j.c, nd, j.e));
}

// jxIsZero is fractal.jx.isZero.
bool jxIsZero(jx j) {
    return j.a == 0.0LF && j.b == 0.0LF && j.c == 0.0LF && j.d == 0.0LF;
}

// jxMul is fractal.jxMul: the matrix product p q.
jx jxMul(jx p, jx q) {
    if (jxIsZero(p) || jxIsZero(q)) {
        return jx(0.0LF, 0.0LF, 0.0LF, 0.0LF, ZERO_EXP);
    }
    precise double a = p.a * q.a + p.b * q.c;
    precise double b = p.a * q.b + p.b * q.d;
    precise double c = p.c * q.a + p.d * q.c;
    precise double d = p.c * q.b + p.d * q.d;
    return jxNorm(jx(a, b, c, d, p.e + q.e));
}

// jxAdd is fractal.jxAdd: p + q.
jx jxAdd(jx p, jx q) {
    if (jxIsZero(p)) {
        return q;
    }
    if (jxIsZero(q)) {
        return p;
    }
    if (p.e < q.e) {
        jx t = p;
        p = q;
        q = t;
    }
    int k = p.e - q.e;
    if (k > 110) {
        return p;
    }
    double s = pow2(-k);
    precise double a = p.a + q.a * s;
    precise double b = p.b + q.b * s;
    precise double c = p.c + q.c * s;
    precise double d = p.d + q.d * s;
    return jxNorm(jx(a, b, c, d, p.e));
}

// jacBlock is fractal.fblaExpEntry.jacobian: J' = A J + ws B through block e (ws the spacing,
// 0 for a Julia set; B ws by fractal.jxScale).
jx jacBlock(int e, jx j, xp ws) {
    int t = BLAX_TEXELS * e;
    uvec4 t0 = blaTexel(t), t1 = blaTexel(t + 1), te = blaTexel(t + BLAX_EXP);
    jx a = jx(packDouble2x32(t0.xy), packDouble2x32(t0.zw), packDouble2x32(t1.xy), packDouble2x32(t1.zw), int(te.x));
    jx r = jxMul(a, j);
    if (ws.m != 0.0LF) {
        uvec4 t2 = blaTexel(t + 2), t3 = blaTexel(t + 3);
        jx b = jx(packDouble2x32(t2.xy), packDouble2x32(t2.zw), packDouble2x32(t3.xy), packDouble2x32(t3.zw), int(te.y));
        if (!jxIsZero(b)) {
            r = jxAdd(r, jxNorm(jx(b.a * ws.m, b.b * ws.m, b.c * ws.m, b.d * ws.m, b.e + ws.e)));
        }
    }
    return r;
}

// jacStepX is fractal.jacStepX: jacStep (common.glsl) for the full value z as a cx and the
// Jacobian j as a jx, add I added.
jx jacStepX(cx z, jx j, xp add) {
    cx w = z;
#if defined(FORMULA_BURNING_SHIP)
    if (z.re < 0.0LF) {
        j.a = -j.a;
        j.b = -j.b;
        w.re = -z.re;
    }
    if (z.im < 0.0LF) {
        j.c = -j.c;
        j.d = -j.d;
        w.im = -z.im;
    }
#elif defined(FORMULA_MANDELBAR)
    j.c = -j.c;
    j.d = -j.d;
    w.im = -z.im;
#elif !defined(FORMULA_MANDELBROT)
#error "a formula kind with no fold in jacStepX"
#endif
    cx p = w;
    for (int k = 2; k < POWER; k++) {
        p = cxMul(p, w);
    }
    p = cxMul(p, cxFrom(double(POWER), 0.0LF));
    precise double ra = p.re * j.a - p.im * j.c;
    precise double rb = p.re * j.b - p.im * j.d;
    precise double rc = p.im * j.a + p.re * j.c;
    precise double rd = p.im * j.b + p.re * j.d;
    return jxAddDiag(jxNorm(jx(ra, rb, rc, rd, p.e + j.e)), add);
}

// smoothFormulaDEX is fractal.smoothFormulaDEX: the smooth value as escapeSmooth gives it,
// the Jacobian continued beside z, then the distance estimate 2 |z|^2 ln|z| / |J^T z| in
// pixels (scaled back by J's exponent) and the normal (finishDEJacX).
float smoothFormulaDEX(double cr, double ci, double zr, double zi, jx j, xp add, int n, out float de, out vec2 u) {
    int m = n;
    precise double r2 = zr * zr + zi * zi;
    while (r2 <= 65536.0LF && m < n + 8) {
        j = jacStepX(cxFrom(zr, zi), j, add);
        formulaStep(zr, zi, cr, ci);
        r2 = zr * zr + zi * zi;
        m++;
    }
    de = 0.0;
    u = vec2(0.0);
    precise double gr = j.a * zr + j.c * zi;  // J^T z 2^-e
    precise double gi = j.b * zr + j.d * zi;
    float az = float(hypotR(zr, zi));
    double ag = hypotR(gr, gi);
    double q = double(2.0 * az * log(az)) / (ag / double(az));
    if (q >= 0.0LF) {
        de = keptDE(ldexpD(q, clamp(-j.e, -4000, 4000)));
    }
    double gm = max(abs(gr), abs(gi));
    if (gm > 0.0LF && !isinf(gm)) {
        vec2 nv = vec2(float(gr / gm), float(gi / gm));
        u = screenNormal(nv / length(nv));
    }
    return smoothValue(m, float(r2));
}
#endif
#endif


xp expMul(xp x, xp y) {
    return makeExp(x.m * y.m, x.e + y.e);
}

// escapesCx is fractal.escapesCx: escapes for a delta d in cx (fractal.escapeExactCx).
bool escapesCx(double x, double y, cx d, double z2, double r2) {
    if (z2 > r2 * escHi()) {
        return true;
    }
    xp dr = makeExp(d.re, d.e), di = makeExp(d.im, d.e);
    xp dot = expAdd(expMul(dr, makeExp(2.0LF * x, 0)), expMul(di, makeExp(2.0LF * y, 0)));
    xp lin = expAdd(dot, expAdd(expMul(dr, dr), expMul(di, di)));
    return expAdd(makeExp(escResidual(x, y, r2), 0), lin).m > 0.0LF;
}

// pixelDcExp is the pixel's dc as a cx.
cx pixelDcExp() {
    dvec2 off = pixelOffsetD();
    xp s = xp(packDouble2x32(uSpacingX), uSpacingXe);
    xp ox = makeExp(off.x, 0), oy = makeExp(off.y, 0);
    precise double sx = s.m * ox.m;
    precise double sy = s.m * oy.m;
    xp re = expAdd(xp(packDouble2x32(uDX.xy), uDXe.x), makeExp(sx, s.e + ox.e));
    xp im = expAdd(xp(packDouble2x32(uDX.zw), uDXe.y), makeExp(sy, s.e + oy.e));
    return cxFromExp(re, im);
}

// blaValid is the BLA test |d|_1 < R of table entry e for perturb.frag's blaLevel, for a cx
// delta (d.ex: am 2^ae) or a double one (ad).
bool blaValid(int e, blaDelta d) {
    uvec4 r = blaTexel(BLAX_TEXELS * e + BLAX_R);
    if (d.ex) {
        int re = int(blaTexel(BLAX_TEXELS * e + BLAX_EXP).z);
        return lessExp(d.am, d.ae, packDouble2x32(r.xy), re);
    }
    return d.ad < packDouble2x32(r.zw);
}

// The state moves between cx and double by these two, which leave the derivative w alone
// unless DERIV carries it.

// enterCx continues in cx: d from (dr, di) and, with DERIV, w from (wr, wi).
void enterCx(inout bool ex, inout cx d, inout cx w, double dr, double di, double wr, double wi) {
    d = cxFrom(dr, di);
#if defined(WDERIV)
    w = cxFrom(wr, wi);
#endif
    ex = true;
}

// leaveCx continues in double if d's exponent, and with DERIV w's too, is above TO_DOUBLE
// (fractal's toFloat), else stays in cx.
void leaveCx(inout bool ex, cx d, cx w, inout double dr, inout double di, inout double wr, inout double wi) {
    ex = d.e <= TO_DOUBLE;
#if defined(WDERIV)
    ex = ex || w.e <= TO_DOUBLE;
#endif
    if (!ex) {
        float64s(d, dr, di);
#if defined(WDERIV)
        float64s(w, wr, wi);
#endif
    }
}

// wTiny reports whether the double derivative is too small for double steps, |w|_1 below
// toExp: never without DERIV, where w plays no part.
bool wTiny(double wr, double wi, double toExp) {
#if defined(WDERIV)
    return abs(wr) + abs(wi) < toExp;
#else
    return false;
#endif
}

// perturbExp runs at most `budget` steps from state (d in cx while ex, else (dr, di); m, n)
// exactly as fractal.PerturbEscapeExp does; it returns as perturb.frag's perturb does.
// Compiled with DERIV it carries the scaled derivative w = (dz/dc) spacing beside the delta
// (in cx while ex, else (wr, wi)), exactly as fractal.PerturbEscapeDEExp does: in cx while
// either is tiny, in double once both are not; on escape, de and u as escapeSmoothDE gives
// them, de scaled back by w's exponent. A Julia set's pixel (JULIA, perturb.frag) starts in
// state n = 0 with d = d0 in cx: fractal.Reference.juliaStartExp first; its dc is 0, its
// derivative starts at the spacing and adds nothing.
int perturbExp(cx dc, double dcr, double dci, inout cx d, inout double dr, inout double di, inout cx w,
               inout double wr, inout double wi, inout bool ex, inout int m, inout int n, int budget,
               out float nu, out float de, out vec2 u) {
    nu = 0.0;
    de = 0.0;
    u = vec2(0.0);
    double toExp = pow2(-950);
    double tinyRef = pow2(-800);
    double tiny = pow2(-900);
    double scale = pow2(600);
#if defined(FORMULA)
    // dc 2^-uBLAScale, what the float64 form's B' multiplies (fractal.FormulaBLAExp.scaledDC).
    double dsr = 0.0LF, dsi = 0.0LF;
    if (dc.re != 0.0LF || dc.im != 0.0LF) {
        dsr = ldexpD(dc.re, dc.e - uBLAScale);
        dsi = ldexpD(dc.im, dc.e - uBLAScale);
    }
#endif
#if defined(WDERIV)
    xp spx = xp(packDouble2x32(uSpacingX), uSpacingXe);
    cx sp = cxFromExp(spx, xp(0.0LF, 0));
    double sp64 = spx.e < -1100 ? spx.m * 0.0LF : ldexpD(spx.m, spx.e);  // fractal.Exp.Float64
#endif
#if defined(JACOBIAN)
    // What each step adds to J's diagonal: the spacing, nothing for a Julia set.
#if defined(JULIA)
    xp jadd = xp(0.0LF, 0);
#else
    xp jadd = xp(packDouble2x32(uSpacingX), uSpacingXe);
#endif
#endif
    bool escaped = false;
    double ezr = 0.0LF, ezi = 0.0LF;
#if defined(JULIA)
#if defined(WDERIV)
    cx wsx = cx(0.0LF, 0.0LF, ZERO_EXP);  // what each step adds to w: nothing
    double ws64 = 0.0LF;
#endif
    if (n == 0) {
        // fractal.Reference.juliaStartExp: z_1 = Z[uJuliaStart] + d0, checked before any step.
        uvec4 jt = orbitTexel(uJuliaStart);
        cx z = cxAdd(zcx(uJuliaStart, packDouble2x32(jt.xy), packDouble2x32(jt.zw)), d);
        double zr, zi;
        float64s(z, zr, zi);
        m = uJuliaStart;
        n = 1;
#if defined(WDERIV)
        w = sp;
#endif
#if defined(ORBIT)
        ringPut(zr, zi);  // z_1
        double r2 = escape2();
#else
        double r2 = 4.0LF;
#endif
        precise double z2 = zr * zr + zi * zi;
        if (abs(zr) + abs(zi) > 2.0LF * escLo() && z2 > r2 * escLo() && escapesCx(packDouble2x32(jt.xy), packDouble2x32(jt.zw), d, z2, r2)) {
            escaped = true;
            ezr = zr;
            ezi = zi;
            budget = 0;
        } else if (absLess(z, d) || m == uJEnd) {
            d = z;
            m = 0;
        }
        leaveCx(ex, d, w, dr, di, wr, wi);
    }
#elif defined(WDERIV)
    cx wsx = sp;
    double ws64 = sp64;
#endif
#if defined(ORBIT)
    double bail2 = escape2();
#else
    double bail2 = 4.0LF;
#endif
    double bail2Lo = bail2 * escLo();
    double zmr = 0.0LF, zmi = 0.0LF;
    if (m > 0) {
        uvec4 zt = orbitTexel(m);
        zmr = packDouble2x32(zt.xy);
        zmi = packDouble2x32(zt.zw);
    }
    for (int s = 0; s < budget && n < uMaxIter; s++) {
        bool jumped = false;
        if (uBLALevels > 0 && m > 0 && m <= uBLASteps) {
            double ad = 0.0LF, am = 0.0LF;
            int ae = 0;
            if (!ex) {
                ad = abs(dr) + abs(di);
                if (ad < toExp || wTiny(wr, wi, toExp)) {
                    enterCx(ex, d, w, dr, di, wr, wi);
                }
            }
            if (ex) {
                am = abs(d.re) + abs(d.im);
                ae = d.e;
            }
            int lo = blaLevel(m, n, blaDelta(ex, am, ae, ad));
#if defined(FORMULA)
            if (lo >= 0) {
                // fractal.perturbFormulaLoopExp's blocks: a cx delta's in cx, a double one's
                // (ad >= toExp here) on the float64 form; the Jacobian through the extended
                // entry either way (perturbFormulaLoopDEExp).
                int e = blaEntry(m, lo);
                if (ex) {
                    d = formulaBlockCx(e, d, dc);
                    leaveCx(ex, d, w, dr, di, wr, wi);
                } else {
                    formulaBlock64(e, dr, di, dsr, dsi);
                }
#if defined(JACOBIAN)
                jac = jacBlock(e, jac, jadd);
#endif
                m += 1 << lo;
                n += 1 << lo;
                jumped = true;
            }
#else
            if (lo >= 0) {
                int e = 4 * blaEntry(m, lo);
                uvec4 ta = blaTexel(e);
                uvec4 tb = blaTexel(e + 1);
                uvec4 te = blaTexel(e + 3);
                cx a = cx(packDouble2x32(ta.xy), packDouble2x32(ta.zw), int(te.x));
                cx b = cx(packDouble2x32(tb.xy), packDouble2x32(tb.zw), int(te.y));
                if (!ex) {
                    enterCx(ex, d, w, dr, di, wr, wi);
                }
                d = cxAdd(cxMul(a, d), cxMul(b, dc));
#if defined(WDERIV)
                w = cxAdd(cxMul(a, w), cxMul(b, wsx));
#endif
                leaveCx(ex, d, w, dr, di, wr, wi);
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
#if defined(FORMULA)
            // fractal.perturbFormulaLoopExp's step: in double unless the result falls below
            // toExp or Z[m] is tiny (then this step again in cx), in cx while the delta is;
            // the Jacobian first, at the full value Z_m + d (perturbFormulaLoopDEExp).
#if defined(JACOBIAN)
            if (ex) {
                jac = jacStepX(cxAdd(zcx(m, zmr, zmi), d), jac, jadd);
            } else if (abs(zmr) + abs(zmi) < tinyRef) {
                jac = jacStepX(cxAdd(zcx(m, zmr, zmi), cxFrom(dr, di)), jac, jadd);
            } else {
                precise double fr = zmr + dr;
                precise double fi = zmi + di;
                jac = jacStepX(cxFrom(fr, fi), jac, jadd);
            }
#endif
            if (!ex) {
                double er = dr, ei = di;
                formulaDelta(zmr, zmi, er, ei, dcr, dci);
                if (abs(er) + abs(ei) < toExp || abs(zmr) + abs(zmi) < tinyRef) {
                    d = formulaStepCx(m, zmr, zmi, cxFrom(dr, di), dc);
                    leaveCx(ex, d, w, dr, di, wr, wi);
                } else {
                    dr = er;
                    di = ei;
                }
            } else {
                d = formulaStepCx(m, zmr, zmi, d, dc);
                leaveCx(ex, d, w, dr, di, wr, wi);
            }
#else
            bool stepped = false;  // this plain step was taken in double
            if (!ex) {
                // d <- (2 Z + d) d + dc in double, or in cx where a product would leave
                // double's range.
                precise double tr = 2.0LF * zmr + dr;
                precise double ti = 2.0LF * zmi + di;
                precise double g = (abs(tr) + abs(ti)) * (abs(dr) + abs(di));
                bool inCx = g < toExp;
#if defined(WDERIV)
                precise double fr = zmr + dr;  // z before the step
                precise double fi = zmi + di;
                precise double gw = (abs(fr) + abs(fi)) * (abs(wr) + abs(wi));
                inCx = inCx || gw < toExp;
#endif
                if (inCx) {
                    enterCx(ex, d, w, dr, di, wr, wi);
                } else {
#if defined(WDERIV)
                    precise double nwr = 2.0LF * (fr * wr - fi * wi) + ws64;
                    precise double nwi = 2.0LF * (fr * wi + fi * wr);
                    wr = nwr;
                    wi = nwi;
#endif
                    precise double nr = tr * dr - ti * di + dcr;
                    precise double ni = tr * di + ti * dr + dci;
                    dr = nr;
                    di = ni;
                    stepped = true;
#if defined(WDERIV)
                    if (abs(dr) + abs(di) < toExp || wTiny(wr, wi, toExp)) {
                        enterCx(ex, d, w, dr, di, wr, wi);
                    }
#endif
                }
            }
            if (ex && !stepped) {
                cx zm = zcx(m, zmr, zmi);
#if defined(WDERIV)
                cx zf = cxAdd(zm, d);  // z before the step
                zf.e++;
                w = cxAdd(cxMul(zf, w), wsx);
#endif
                zm.e++;
                d = cxAdd(cxMul(cxAdd(zm, d), d), dc);  // (2Z + d) d + dc
                leaveCx(ex, d, w, dr, di, wr, wi);
            }
#endif
            m++;
            n++;
        }
        uvec4 zt = orbitTexel(m);
        zmr = packDouble2x32(zt.xy);
        zmi = packDouble2x32(zt.zw);
        if (ex) {
#if defined(ORBIT)
            {
                // The iterate Z_m + d, as the CPU records it (fractal.perturbLoopChExp).
                double vr, vi;
                float64s(cxAdd(zcx(m, zmr, zmi), d), vr, vi);
                ringPut(vr, vi);
            }
#endif
            if (abs(zmr) + abs(zmi) >= tinyRef) {
                precise double z2 = zmr * zmr + zmi * zmi;
                if (z2 > bail2Lo && escapesCx(zmr, zmi, d, z2, bail2)) {
                    escaped = true;
                    ezr = zmr;
                    ezi = zmi;
                    break;
                }
#if defined(JULIA)
                bool jEnd = m == uJEnd;  // the end of the reference point's orbit: rebase
#else
                const bool jEnd = false;
#endif
                if (m == uLast && uPeriod > 0) {
                    m -= uPeriod;
                } else if (m == uLast || jEnd) {
                    d = cxAdd(zcx(m, zmr, zmi), d);
                    m = 0;
                }
            } else {
                cx v = cxAdd(zcx(m, zmr, zmi), d);
#if defined(JULIA)
                bool jEnd = m == uJEnd;
#else
                const bool jEnd = false;
#endif
                if (absLess(v, d) || m == uLast && uPeriod == 0 || jEnd) {
                    d = v;
                    m = 0;
                } else if (m == uLast) {
                    m -= uPeriod;
                }
            }
            if (m == 0) {
                leaveCx(ex, d, w, dr, di, wr, wi);
                zmr = 0.0LF;
                zmi = 0.0LF;
            }
            continue;
        }
        precise double zr = zmr + dr;
        precise double zi = zmi + di;
        precise double z2 = zr * zr + zi * zi;
#if defined(ORBIT)
        ringPut(zr, zi);
#endif
        if (z2 > bail2Lo && escapes(zmr, zmi, dr, di, z2, bail2)) {
            escaped = true;
            ezr = zr;
            ezi = zi;
            break;
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
            if (abs(zmr) + abs(zmi) < tinyRef) {
                // Z[m] may be below double's range (kept exactly in uTiny): add in cx.
                d = cxAdd(zcx(m, zmr, zmi), cxFrom(dr, di));
#if defined(WDERIV)
                w = cxFrom(wr, wi);
#endif
                leaveCx(ex, d, w, dr, di, wr, wi);
            } else {
#if defined(FORMULA)
                // fractal.perturbFormulaLoopExp: in cx where its exponent is TO_DOUBLE or less.
                d = cxFrom(zr, zi);
                leaveCx(ex, d, w, dr, di, wr, wi);
#else
                dr = zr;
                di = zi;
                if (abs(dr) + abs(di) < toExp) {
                    enterCx(ex, d, w, dr, di, wr, wi);
                }
#endif
            }
            m = 0;
            zmr = 0.0LF;
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
#if defined(JACOBIAN)
        nu = smoothFormulaDEX(cr, ci, ezr, ezi, jac, jadd, n, de, u);
#elif defined(WDERIV)
        // fractal.smoothDEExp: the continuation on w's mantissa with the spacing in w's
        // scale, the distance scaled back.
        cx ew = ex ? w : cxFrom(wr, wi);
        int we = ew.e;
        if (ew.re == 0.0LF && ew.im == 0.0LF) {
            we = spx.e;
        }
        int se = spx.m == 0.0LF ? 0 : spx.e - we;
        double s = se < -1100 ? spx.m * 0.0LF : ldexpD(spx.m, se);
#if defined(JULIA)
        s = 0.0LF;  // the derivative's steps add nothing
#endif
        nu = escapeSmoothDE(cr, ci, ezr, ezi, ew.re, ew.im, s, n, de, u);
        if (de > 0.0) {
            de *= exp2(float(clamp(-we, -200, 200)));
        }
#else
        nu = escapeSmooth(cr, ci, ezr, ezi, n);
#endif
        return n;
    }
    return n >= uMaxIter ? -1 : 0;
}

#if defined(STAGE_ITERATE)
// Multi-pass state: texture 0 holds the delta's two doubles (re lo, re hi, im lo, im hi):
// the cx mantissas while the state is extended, else the double delta; texture 1 (m, with
// the top bit set while extended, n, d's exponent, w's exponent); texture 3 the derivative's
// two doubles likewise (DERIV); texture 2 as in common.glsl. A formula's Jacobian (JACOBIAN):
// (a, c) in texture 3, (b, d) in texture 4 (common.glsl's), its exponent in texture 1's w.
//
// The orbit path (ORBIT, perturb.frag's passes): texture 2 holds (0, orbitLimit,
// orbitBlockEnd, 0) while the pixel iterates; textures 4, 5 and 6 the checkpoint, the state
// K steps before the previous pass's end (d's doubles; m with the top bit set while extended,
// n, d's exponent, w's exponent; w's doubles: w decides when d goes extended, so the run
// again from it must carry w too).
#if defined(ORBIT)
uniform usampler2D uState6;
layout(location = 6) out uvec4 oState6;

// packExp packs a perturbExp state as textures 0, 1 and 3 hold it.
void packExp(cx d, double dr, double di, cx w, double wr, double wi, bool ex, int m, int n,
             out uvec4 s0, out uvec4 s1, out uvec4 s3) {
    if (ex) {
        s0 = uvec4(unpackDouble2x32(d.re), unpackDouble2x32(d.im));
        s1 = uvec4(uint(m) | 0x80000000u, uint(n), uint(d.e), uint(w.e));
        s3 = uvec4(unpackDouble2x32(w.re), unpackDouble2x32(w.im));
    } else {
        s0 = uvec4(unpackDouble2x32(dr), unpackDouble2x32(di));
        s1 = uvec4(uint(m), uint(n), 0u, 0u);
        s3 = uvec4(unpackDouble2x32(wr), unpackDouble2x32(wi));
    }
}

// unpackExp reads a state as packExp (and the passes) pack it.
void unpackExp(uvec4 dv, uvec4 mn, uvec4 wv, out cx d, out double dr, out double di, out cx w,
               out double wr, out double wi, out bool ex, out int m, out int n) {
    m = int(mn.x & 0x7fffffffu);
    n = int(mn.y);
    ex = (mn.x & 0x80000000u) != 0u;
    d = cx(0.0LF, 0.0LF, ZERO_EXP);
    w = d;
    dr = 0.0LF;
    di = 0.0LF;
    wr = 0.0LF;
    wi = 0.0LF;
    if (ex) {
        d = cx(packDouble2x32(dv.xy), packDouble2x32(dv.zw), int(mn.z));
        w = cx(packDouble2x32(wv.xy), packDouble2x32(wv.zw), int(mn.w));
    } else {
        dr = packDouble2x32(dv.xy);
        di = packDouble2x32(dv.zw);
        wr = packDouble2x32(wv.xy);
        wi = packDouble2x32(wv.zw);
    }
}

void main() {
    cx dc = pixelDcExp();
    double dcr, dci;
    float64s(dc, dcr, dci);
    cx d = cx(0.0LF, 0.0LF, ZERO_EXP);
    cx w = d;
    double dr = 0.0LF, di = 0.0LF, wr = 0.0LF, wi = 0.0LF;
    bool ex = true;
    int m = 0, n = 0;
#if defined(JACOBIAN)
    // J = spacing I (fractal.PerturbEscapeFormulaDEExp), a Julia set's too.
    jac = jxNorm(jx(packDouble2x32(uSpacingX), 0.0LF, 0.0LF, packDouble2x32(uSpacingX), uSpacingXe));
#endif
#if defined(JULIA)
    // The pixel's delta d0 is what the Mandelbrot set's dc is; its dc is 0.
    d = dc;
    dc = cx(0.0LF, 0.0LF, ZERO_EXP);
    dcr = 0.0LF;
    dci = 0.0LF;
#endif
    cx d0 = d, w0 = w;
    uvec4 c0, c1, c3;  // the checkpoint; in the first pass the start
    packExp(d, dr, di, w, wr, wi, ex, m, n, c0, c1, c3);
    orbitLimit = uMaxIter;
    orbitBlockEnd = 0;
    if (uK0 > 1) {
        ivec2 t = ivec2(gl_FragCoord.xy);
        uvec4 st = texelFetch(uState2, t, 0);
        if (carryFinished(st)) {
            return;
        }
        orbitLimit = int(st.y);
        orbitBlockEnd = int(st.z);
        unpackExp(texelFetch(uState0, t, 0), texelFetch(uState1, t, 0), texelFetch(uState3, t, 0), d, dr, di, w, wr, wi, ex, m, n);
        c0 = texelFetch(uState4, t, 0);
        c1 = texelFetch(uState5, t, 0);
        c3 = texelFetch(uState6, t, 0);
    }
    float nu, de;
    vec2 u;
    int n0 = n;
    int budget = uK1 - uK0 + 1;
    int head = max(budget - uStripeK, 0);
    int r = perturbExp(dc, dcr, dci, d, dr, di, w, wr, wi, ex, m, n, head, nu, de, u);
    uvec4 n0s, n1s, n3s;  // the next pass's checkpoint
    packExp(d, dr, di, w, wr, wi, ex, m, n, n0s, n1s, n3s);
    if (r == 0) {
        r = perturbExp(dc, dcr, dci, d, dr, di, w, wr, wi, ex, m, n, budget - head, nu, de, u);
    }
    float chT = 0.0, chS = 0.0;
    if (r > 0 && orbitBlockEnd >= max(1, r - uStripeK + 1)) {
        // A block ended among the last K iterates: start again with blocks up to N - K.
        orbitLimit = min(uMaxIter, r - uStripeK);
        orbitBlockEnd = 0;
        d = d0;
        w = w0;
        dr = 0.0LF;
        di = 0.0LF;
        wr = 0.0LF;
        wi = 0.0LF;
        ex = true;
        m = 0;
        n = 0;
        packExp(d, dr, di, w, wr, wi, ex, m, n, n0s, n1s, n3s);
        r = 0;
    } else if (r > 0) {
        if (uK0 > 1 && r - n0 < uStripeK) {
            // Fewer than K iterates in this pass's ring: run again from the checkpoint.
            cx rd, rw;
            double rdr, rdi, rwr, rwi;
            bool rex;
            int rm, rn;
            float rnu, rde;
            vec2 ru;
            unpackExp(c0, c1, c3, rd, rdr, rdi, rw, rwr, rwi, rex, rm, rn);
            orbitSlot = 0;
            perturbExp(dc, dcr, dci, rd, rdr, rdi, rw, rwr, rwi, rex, rm, rn, uMaxIter, rnu, rde, ru);
        }
        orbitChannels(r, chT, chS);
    }
    packExp(d, dr, di, w, wr, wi, ex, m, n, oState0, oState1, oState3);
    oState4 = r != 0 ? uvec4(floatBitsToUint(chT), floatBitsToUint(chS), 0u, 0u) : n0s;
    oState5 = n1s;
    oState6 = n3s;
    if (r > 0) {
        oState2 = finishedState(2u, nu);
        oState3 = finishedShading(de, u);
    } else if (r < 0) {
        oState2 = finishedState(1u, 0.0);
        oState3 = finishedShading(0.0, vec2(0.0));
    } else {
        oState2 = uvec4(0u, uint(orbitLimit), uint(orbitBlockEnd), 0u);
    }
}
#else
void main() {
    cx dc = pixelDcExp();
    double dcr, dci;
    float64s(dc, dcr, dci);
    cx d = cx(0.0LF, 0.0LF, ZERO_EXP);
    cx w = d;
    double dr = 0.0LF, di = 0.0LF, wr = 0.0LF, wi = 0.0LF;
    bool ex = true;
    int m = 0, n = 0;
#if defined(JACOBIAN)
    // J = spacing I (fractal.PerturbEscapeFormulaDEExp), a Julia set's too.
    jac = jxNorm(jx(packDouble2x32(uSpacingX), 0.0LF, 0.0LF, packDouble2x32(uSpacingX), uSpacingXe));
#endif
#if defined(JULIA)
    // The pixel's delta d0 is what the Mandelbrot set's dc is; its dc is 0.
    d = dc;
    dc = cx(0.0LF, 0.0LF, ZERO_EXP);
    dcr = 0.0LF;
    dci = 0.0LF;
#endif
    if (uK0 > 1) {
        ivec2 t = ivec2(gl_FragCoord.xy);
        if (carryFinished(texelFetch(uState2, t, 0))) {
            return;
        }
        uvec4 dv = texelFetch(uState0, t, 0);
        uvec4 mn = texelFetch(uState1, t, 0);
        m = int(mn.x & 0x7fffffffu);
        n = int(mn.y);
        ex = (mn.x & 0x80000000u) != 0u;
        if (ex) {
            d = cx(packDouble2x32(dv.xy), packDouble2x32(dv.zw), int(mn.z));
        } else {
            dr = packDouble2x32(dv.xy);
            di = packDouble2x32(dv.zw);
        }
#if defined(JACOBIAN)
        // J: (a, c) in texture 3, (b, d) in texture 4, its exponent in texture 1's w.
        uvec4 ja = texelFetch(uState3, t, 0), jb4 = texelFetch(uState4, t, 0);
        jac = jx(packDouble2x32(ja.xy), packDouble2x32(jb4.xy), packDouble2x32(ja.zw), packDouble2x32(jb4.zw), int(mn.w));
#elif defined(WDERIV)
        uvec4 wv = texelFetch(uState3, t, 0);
        if (ex) {
            w = cx(packDouble2x32(wv.xy), packDouble2x32(wv.zw), int(mn.w));
        } else {
            wr = packDouble2x32(wv.xy);
            wi = packDouble2x32(wv.zw);
        }
#endif
    }
    float nu, de;
    vec2 u;
    int r = perturbExp(dc, dcr, dci, d, dr, di, w, wr, wi, ex, m, n, uK1 - uK0 + 1, nu, de, u);
    if (ex) {
        oState0 = uvec4(unpackDouble2x32(d.re), unpackDouble2x32(d.im));
        oState1 = uvec4(uint(m) | 0x80000000u, uint(n), uint(d.e), uint(w.e));
        oState3 = uvec4(unpackDouble2x32(w.re), unpackDouble2x32(w.im));
    } else {
        oState0 = uvec4(unpackDouble2x32(dr), unpackDouble2x32(di));
        oState1 = uvec4(uint(m), uint(n), 0u, 0u);
        oState3 = uvec4(unpackDouble2x32(wr), unpackDouble2x32(wi));
    }
#if defined(JACOBIAN)
    oState1.w = uint(jac.e);
    oState3 = uvec4(unpackDouble2x32(jac.a), unpackDouble2x32(jac.c));
    oState4 = uvec4(unpackDouble2x32(jac.b), unpackDouble2x32(jac.d));
#endif
    if (r > 0) {
        oState2 = finishedState(2u, nu);
        oState3 = finishedShading(de, u);
    } else if (r < 0) {
        oState2 = finishedState(1u, 0.0);
        oState3 = finishedShading(0.0, vec2(0.0));
    } else {
        oState2 = uvec4(0u);
    }
}
#endif

#else
out vec4 fragColor;

void main() {
    cx dc = pixelDcExp();
    double dcr, dci;
    float64s(dc, dcr, dci);
    cx d = cx(0.0LF, 0.0LF, ZERO_EXP);
    cx w = d;
    double dr = 0.0LF, di = 0.0LF, wr = 0.0LF, wi = 0.0LF;
    bool ex = true;
    int m = 0, n = 0;
#if defined(JACOBIAN)
    // J = spacing I (fractal.PerturbEscapeFormulaDEExp), a Julia set's too.
    jac = jxNorm(jx(packDouble2x32(uSpacingX), 0.0LF, 0.0LF, packDouble2x32(uSpacingX), uSpacingXe));
#endif
#if defined(JULIA)
    // The pixel's delta d0 is what the Mandelbrot set's dc is; its dc is 0.
    d = dc;
    dc = cx(0.0LF, 0.0LF, ZERO_EXP);
    dcr = 0.0LF;
    dci = 0.0LF;
#endif
    float nu, de;
    vec2 u;
#if defined(ORBIT)
    // Run again while a block ended among the last K iterates (perturb.frag's single pass).
    cx d0 = d, w0 = w;
    int r = 0;
    orbitLimit = uMaxIter;
    for (int run = 0; run <= uMaxIter; run++) {
        d = d0;
        w = w0;
        dr = 0.0LF;
        di = 0.0LF;
        wr = 0.0LF;
        wi = 0.0LF;
        ex = true;
        m = 0;
        n = 0;
        orbitSlot = 0;
        orbitBlockEnd = 0;
        r = perturbExp(dc, dcr, dci, d, dr, di, w, wr, wi, ex, m, n, uMaxIter, nu, de, u);
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
    int r = perturbExp(dc, dcr, dci, d, dr, di, w, wr, wi, ex, m, n, uMaxIter, nu, de, u);
    fragColor = r > 0 ? vec4(shade(nu, de, u) / 255.0, 1.0) : vec4(0.0, 0.0, 0.0, 1.0);
#endif
}
#endif
