package fractal

// A reference orbit as a file, so that the shards of a deep export on a cluster read one
// orbit computed once instead of each computing it (minutes at depth), and can tell by its
// digest that they all drew with the same one.
//
// Layout (version 1, little-endian), every field checked when read:
//
//	magic "MSCOPREF", version uint32
//	prec, maxIter, period, computed, flags (1: escaped, 2: computed without a period) uint32
//	the point: re, im as big.Float gob encodings (uint32 length, bytes), then as float64
//	version 2 only (flag 4: a reference at a minibrot's nucleus, nucleusref.go): the centre
//	of the view it serves, re, im as big.Float gob encodings and as float64
//	n uint32, then n complex values Z[0..n-1] as float64 pairs
//	t uint32, then t values kept exactly (index uint32, re, im float64, exponent int64),
//	by index
//	SHA-256 of everything before it (32 bytes): the digest
//
// 16 bytes an iteration: a million-iteration orbit is 16 MB.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
)

const (
	referenceMagic   = "MSCOPREF"
	referenceVersion = 1
	// referenceVersionAnchored is the version of a file whose orbit is at a nucleus and
	// carries the view's centre too (flag 4); other orbits are still written as version 1.
	referenceVersionAnchored = 2
	// referenceHeader is the fixed part before the point: magic, version, five fields.
	referenceHeader = 8 + 4 + 5*4
	// maxPointBytes bounds a point's gob encoding (MaxReferencePrec bits and a few bytes).
	maxPointBytes = MaxReferencePrec/8 + 64
)

// MaxReferenceFileSize bounds a reference file: the longest orbit, its exact tiny values, the
// point and the header.
const MaxReferenceFileSize = referenceHeader + 4*(4+maxPointBytes) + 32 + 4 + 16*(MaxReferenceLength+1) + 4 + 28*(MaxReferenceLength+1) + sha256.Size

// ReferenceFileSize is the size in bytes of the file WriteReference writes for an orbit of
// n values (Iterations()+1 for one that did not escape) at prec bits, with no exact tiny
// values (28 bytes each): the header, the point (twice ~prec/8 bytes), 16 bytes a value and
// the digest. A point whose mantissa needs fewer words than prec bits takes less.
func ReferenceFileSize(n int, prec uint) int64 {
	point := int64(4 + 2 + 4 + 4 + (prec+63)/64*8) // uint32 length + the gob of a big.Float (64-bit words)
	return referenceHeader + 2*point + 16 + 4 + 16*int64(n) + 4 + sha256.Size
}

// EncodeReference returns ref as a reference file and its digest (hex SHA-256). Reference
// files hold Mandelbrot orbits: a Julia reference is refused (its frames compute their own).
func EncodeReference(ref *Reference) ([]byte, string, error) {
	if ref.julia.On {
		return nil, "", errors.New("reference files hold Mandelbrot set orbits; a Julia set's view computes its own")
	}
	var b bytes.Buffer
	le := binary.LittleEndian
	u32 := func(v int) { b.Write(le.AppendUint32(nil, uint32(v))) }
	f64 := func(v float64) { b.Write(le.AppendUint64(nil, math.Float64bits(v))) }
	b.WriteString(referenceMagic)
	version, flags := referenceVersion, 0
	if ref.escaped {
		flags |= 1
	}
	if ref.noPeriod {
		flags |= 2
	}
	points := []*big.Float{ref.re, ref.im}
	if ref.anchorRe != nil {
		version, flags = referenceVersionAnchored, flags|4
		points = append(points, ref.anchorRe, ref.anchorIm)
	}
	u32(version)
	for _, v := range []int{int(ref.prec), ref.maxIter, ref.period, ref.computed, flags} {
		u32(v)
	}
	for i := 0; i < len(points); i += 2 {
		for _, x := range points[i : i+2] {
			g, err := x.GobEncode()
			if err != nil {
				return nil, "", err
			}
			u32(len(g))
			b.Write(g)
		}
		fr, _ := points[i].Float64()
		fi, _ := points[i+1].Float64()
		f64(fr)
		f64(fi)
	}
	b.Grow(16*len(ref.Z) + 64)
	u32(len(ref.Z))
	for _, z := range ref.Z {
		f64(real(z))
		f64(imag(z))
	}
	idx := make([]int, 0, len(ref.tiny))
	for m := range ref.tiny {
		idx = append(idx, m)
	}
	sort.Ints(idx)
	u32(len(idx))
	for _, m := range idx {
		c := ref.tiny[m]
		u32(m)
		f64(c.re)
		f64(c.im)
		b.Write(le.AppendUint64(nil, uint64(int64(c.e))))
	}
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes(), hex.EncodeToString(sum[:]), nil
}

// ReferenceDigest is the digest of ref's file (see EncodeReference). A Julia reference,
// which has no file, gets the digest of its parameter, its point, its precision and its orbit
// (what identifies it among shards).
func ReferenceDigest(ref *Reference) (string, error) {
	if ref.julia.On {
		h := sha256.New()
		fmt.Fprintf(h, "julia %s point %s,%s prec %d start %d period %d\n", ref.julia, ref.re.Text('g', -1), ref.im.Text('g', -1), ref.prec, ref.jStart, ref.period)
		var buf [16]byte
		for _, z := range ref.Z {
			binary.LittleEndian.PutUint64(buf[:8], math.Float64bits(real(z)))
			binary.LittleEndian.PutUint64(buf[8:], math.Float64bits(imag(z)))
			h.Write(buf[:])
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	_, d, err := EncodeReference(ref)
	return d, err
}

// DecodeReference reads a reference file (hostile input: every size, value and relation is
// checked) and returns the orbit and its digest. Its errors are one line.
func DecodeReference(r io.Reader) (*Reference, string, error) {
	body, sum, err := readReferenceBody(r)
	if err != nil {
		return nil, "", err
	}
	d := &refDecoder{b: body[8:]}
	v := d.u32()
	if v != referenceVersion && v != referenceVersionAnchored {
		return nil, "", fmt.Errorf("it is version %d, which this version does not read", v)
	}
	prec, maxIter, period, computed, flags := d.u32(), d.u32(), d.u32(), d.u32(), d.u32()
	ref := &Reference{prec: uint(prec), maxIter: int(maxIter), period: int(period), computed: int(computed),
		escaped: flags&1 != 0, noPeriod: flags&2 != 0}
	anchored := v == referenceVersionAnchored
	switch {
	case prec < 53 || prec > MaxReferencePrec:
		return nil, "", fmt.Errorf("its precision %d bits is out of range (53 to %d)", prec, MaxReferencePrec)
	case maxIter < 1 || maxIter > MaxReferenceLength:
		return nil, "", fmt.Errorf("its iteration count %d is out of range (1 to %d)", maxIter, MaxReferenceLength)
	case flags > 7 || (flags&4 != 0) != anchored:
		return nil, "", fmt.Errorf("it has unknown flags %#x for version %d", flags, v)
	case anchored && (period == 0 || flags&3 != 0):
		return nil, "", errors.New("its orbit is at a nucleus but is not periodic")
	}
	if err := d.point(&ref.re, &ref.im, &ref.cre, &ref.cim, prec); err != nil {
		return nil, "", err
	}
	if anchored {
		var ar, ai float64
		if err := d.point(&ref.anchorRe, &ref.anchorIm, &ar, &ai, prec); err != nil {
			return nil, "", fmt.Errorf("its view's centre: %w", err)
		}
	}
	n, err := d.orbit(ref, maxIter, period, computed)
	if err != nil {
		return nil, "", err
	}
	if err := d.exactValues(ref, n); err != nil {
		return nil, "", err
	}
	if d.err != nil || d.left() != 0 {
		return nil, "", errors.New("it is cut short or has bytes left over")
	}
	return ref, hex.EncodeToString(sum), nil
}

// readReferenceBody reads a reference file whole and checks its size, magic and SHA-256;
// body is the file less its SHA-256, sum.
func readReferenceBody(r io.Reader) (body, sum []byte, err error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxReferenceFileSize+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > MaxReferenceFileSize {
		return nil, nil, fmt.Errorf("it is larger (over %d bytes) than any reference orbit file", MaxReferenceFileSize)
	}
	if len(data) < referenceHeader+sha256.Size || string(data[:8]) != referenceMagic {
		return nil, nil, errors.New("it is not a Mandelscope reference orbit file")
	}
	body, sum = data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, nil, errors.New("it is damaged (its SHA-256 does not match its contents)")
	}
	return body, sum, nil
}

// point reads the orbit's point: each part exact (a big.Float at the orbit's precision,
// prec) and as a float64, which must agree.
func (d *refDecoder) point(re, im **big.Float, fre, fim *float64, prec uint32) error {
	for i, p := range []**big.Float{re, im} {
		n := d.u32()
		if n > maxPointBytes {
			return fmt.Errorf("its point's part %d claims %d bytes", i+1, n)
		}
		x := new(big.Float)
		g := d.bytes(int(n))
		if d.err != nil || !validFloatGob(g) {
			return fmt.Errorf("its point's part %d does not decode", i+1)
		}
		if err := x.GobDecode(g); err != nil {
			return fmt.Errorf("its point's part %d does not decode", i+1)
		}
		if x.IsInf() || x.Prec() != uint(prec) {
			return fmt.Errorf("its point's part %d is infinite or not at the orbit's precision", i+1)
		}
		*p = x
	}
	*fre, *fim = d.f64(), d.f64()
	if fr, _ := (*re).Float64(); fr != *fre || math.Abs(fr) > MaxCentre {
		return errors.New("its point's float64 value does not match its exact value, or is out of range")
	}
	if fi, _ := (*im).Float64(); fi != *fim || math.Abs(fi) > MaxCentre {
		return errors.New("its point's float64 value does not match its exact value, or is out of range")
	}
	return nil
}

// orbit reads the orbit's n values, checked against the escape radius, the escaped flag,
// the period and the last computed index.
func (d *refDecoder) orbit(ref *Reference, maxIter, period, computed uint32) (n uint32, err error) {
	n = d.u32()
	if n < 2 || n > MaxReferenceLength+1 || n-1 > maxIter || int64(n)*16 > int64(d.left()) {
		return 0, fmt.Errorf("its orbit length %d does not fit its iteration count %d or its size", n, maxIter)
	}
	ref.Z = make([]complex128, n)
	for i := range ref.Z {
		re, im := d.f64(), d.f64()
		if math.IsNaN(re) || math.IsNaN(im) || math.IsInf(re, 0) || math.IsInf(im, 0) {
			return 0, fmt.Errorf("its orbit value %d is not a finite number", i)
		}
		// Every value before the last is within the escape radius (a little slack for
		// the rounding to float64); the last is beyond it exactly when the point escaped.
		if i < int(n)-1 && re*re+im*im > 4*(1+1e-9) {
			return 0, fmt.Errorf("its orbit value %d is beyond the escape radius before the orbit's end", i)
		}
		ref.Z[i] = complex(re, im)
	}
	last := ref.Z[n-1]
	switch {
	case ref.Z[0] != 0:
		return 0, errors.New("its orbit does not start at 0")
	case ref.escaped != (real(last)*real(last)+imag(last)*imag(last) > 4):
		return 0, errors.New("its orbit's last value does not agree with its escaped flag")
	case period >= n || (period > 0 && ref.escaped):
		return 0, fmt.Errorf("its period %d does not fit its orbit of %d values", period, n)
	case computed >= n:
		return 0, fmt.Errorf("its last computed index %d is past its orbit of %d values", computed, n)
	}
	return n, nil
}

// exactValues reads the orbit's exact values (those too small for a float64), in order,
// each at an index of the orbit of n values.
func (d *refDecoder) exactValues(ref *Reference, n uint32) error {
	t := d.u32()
	if int64(t)*28 != int64(d.left()) {
		return fmt.Errorf("it claims %d exact values where %d bytes are left", t, d.left())
	}
	prev := -1
	for range t {
		m := int(d.u32())
		re, im, e := d.f64(), d.f64(), int64(d.u64())
		if m <= prev || m >= int(n) {
			return fmt.Errorf("its exact value at %d is out of order or past the orbit", m)
		}
		if math.IsNaN(re) || math.IsNaN(im) || math.IsInf(re, 0) || math.IsInf(im, 0) || e < math.MinInt32 || e > math.MaxInt32 {
			return fmt.Errorf("its exact value at %d is not a finite number", m)
		}
		if ref.tiny == nil {
			ref.tiny = map[int]cx{}
		}
		ref.tiny[m] = cx{re: re, im: im, e: int(e)}
		prev = m
	}
	return nil
}

// refDecoder reads little-endian fields; running past the end sets err (and gives zeros).
type refDecoder struct {
	b   []byte
	err error
}

func (d *refDecoder) bytes(n int) []byte {
	if n < 0 || n > len(d.b) {
		d.err = io.ErrUnexpectedEOF
		d.b = nil
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *refDecoder) u32() uint32 {
	b := d.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (d *refDecoder) u64() uint64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *refDecoder) f64() float64 { return math.Float64frombits(d.u64()) }
func (d *refDecoder) left() int    { return len(d.b) }

// CheckFor says whether ref is the reference orbit frame f computes for itself (at its own
// centre, with its precision and iterations), so that pixels drawn with it are the ones a
// render computing its own would draw, bit for bit: nil when it is, else a one-line error
// naming what differs.
func (ref *Reference) CheckFor(f Frame) error {
	if !f.Precision().Perturbs() {
		return errors.New("the view needs no reference orbit (it is not deep enough for perturbation)")
	}
	if f.Loc.Julia != ref.julia {
		return errors.New("reference files hold Mandelbrot set orbits; a Julia set's view computes its own")
	}
	if bits := f.ReferenceBits(); ref.prec != bits {
		return fmt.Errorf("the reference orbit has %d bits of precision, the view needs %d", ref.prec, bits)
	}
	if want := min(f.Loc.Iterations, MaxReferenceLength); ref.maxIter != want {
		return fmt.Errorf("the reference orbit is for %d iterations, the view has %d", ref.maxIter, want)
	}
	if ar, ai := ref.anchor(); f.Loc.Re.Big(ref.prec).Cmp(ar) != 0 || f.Loc.Im.Big(ref.prec).Cmp(ai) != 0 {
		return errors.New("the reference orbit is of another point than the view's centre")
	}
	return nil
}

// Add puts ref into the cache, as if it had been computed there (a reference orbit read from
// a file): frames within its reach get it from Get.
func (c *ReferenceCache) Add(ref *Reference) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refs = append([]*Reference{ref}, c.refs[:min(len(c.refs), referenceCacheSize-1)]...)
}

// ComputeFrameReference computes frame f's own reference orbit (what WithReference computes
// for it in an empty cache).
func ComputeFrameReference(ctx context.Context, f Frame, progress func(done, total int)) (*Reference, error) {
	return (&ReferenceCache{}).Get(ctx, f, progress)
}

// validFloatGob reports whether b's header byte (after the version) holds values a big.Float
// can have: a rounding mode, an accuracy and a form (zero or finite; infinities are refused
// anyway) that exist. Float.GobDecode checks the mantissa but takes those bits as they come,
// and a form that does not exist makes Float64 panic (found by FuzzDecodeReference).
func validFloatGob(b []byte) bool {
	if len(b) < 2 {
		return len(b) == 0
	}
	mode, acc, form := b[1]>>5&7, b[1]>>3&3, b[1]>>1&3
	return mode <= byte(big.ToPositiveInf) && acc <= 2 && form <= 1
}
