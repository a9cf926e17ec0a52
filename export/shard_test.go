package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/pngverify"
	"mandelscope/render/cpu"
)

// shardOpts is a small export with a dozen strips and several blocks a strip.
func shardOpts() Options {
	return Options{Location: testLoc(), Width: 173, Height: 131, Tile: 64, StripBytes: 4 * 173 * 11, Version: "t"}
}

// exportShards renders every shard of opt's export to path, one after another.
func exportShards(t *testing.T, path string, opt Options, n int) {
	t.Helper()
	for i := range n {
		o := opt
		o.Shard, o.Shards = i, n
		sum, err := Export(context.Background(), &cpu.Renderer{}, path, o)
		if err != nil {
			t.Fatalf("shard %d of %d: %v", i, n, err)
		}
		if sum.Path != ShardPath(path, i, n) || sum.AlreadyComplete {
			t.Fatalf("shard %d of %d: summary %+v", i, n, sum)
		}
	}
}

// The N shards of an export, assembled, are byte for byte the one-machine export, for
// several N, more shards than strips among them (those shards are empty), and
// supersampling; the PNG decodes to the one-machine export's pixels.
func TestShardsAssembleByteIdentical(t *testing.T) {
	base := shardOpts()
	whole, sum := export(t, t.TempDir(), base)
	if sum.Strips < 8 {
		t.Fatalf("only %d strips: the test wants more", sum.Strips)
	}
	if md, err := ReadMetadata(whole); err != nil || !md.Location.Color.AutoDensity {
		t.Fatalf("the one-machine export's density: %+v, %v; want automatic", md.Location.Color, err)
	}
	for _, n := range []int{1, 2, 3, 7, sum.Strips, sum.Strips + 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.png")
			exportShards(t, path, base, n)
			as, err := Assemble(context.Background(), path, AssembleOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if as.Shards != n || as.Width != 173 || as.Height != 131 {
				t.Errorf("summary %+v", as)
			}
			sameFile(t, path, whole)
			if st, _ := os.Stat(path); st.Size() != as.Bytes {
				t.Errorf("summary says %d bytes, the file has %d", as.Bytes, st.Size())
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := pngverify.Verify(f, nil); err != nil {
				t.Fatal(err)
			}
			f.Seek(0, 0)
			if _, err := png.Decode(f); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(PartPath(path)); !errors.Is(err, os.ErrNotExist) {
				t.Error("assembly left its .part")
			}
		})
	}
	// An explicit density: the shards' PNG is the explicit one-machine export (no chunk
	// saying the density was chosen), and so is one whose shards were not all automatic.
	t.Run("explicit", func(t *testing.T) {
		o := base
		o.Location.Color.AutoDensity = false
		want, _ := export(t, t.TempDir(), o)
		sameButAuto(t, whole, want)
		path := filepath.Join(t.TempDir(), "s.png")
		exportShards(t, path, o, 3)
		if _, err := Assemble(context.Background(), path, AssembleOptions{}); err != nil {
			t.Fatal(err)
		}
		sameFile(t, path, want)
		mixed := filepath.Join(t.TempDir(), "m.png")
		exportShards(t, mixed, base, 3)
		one := o
		one.Shard, one.Shards, one.Overwrite = 1, 3, true
		if _, err := Export(context.Background(), &cpu.Renderer{}, mixed, one); err != nil {
			t.Fatal(err)
		}
		if _, err := Assemble(context.Background(), mixed, AssembleOptions{}); err != nil {
			t.Fatal(err)
		}
		sameFile(t, mixed, want)
	})
	t.Run("supersampled", func(t *testing.T) {
		o := base
		o.Supersample = 2
		o.Location.Color.Method = colour.MethodDistance
		want, _ := export(t, t.TempDir(), o)
		path := filepath.Join(t.TempDir(), "s.png")
		exportShards(t, path, o, 4)
		if _, err := Assemble(context.Background(), path, AssembleOptions{Shards: 4, Remove: true}); err != nil {
			t.Fatal(err)
		}
		sameFile(t, path, want)
		for i := range 4 {
			if _, err := os.Lstat(ShardPath(path, i, 4)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("shard %d kept after Remove", i)
			}
		}
	})
}

// A shard stopped partway (as if pre-empted) continues from its checkpoint when run again
// with the same options; a complete shard run again is kept as it is; the result is the
// one-machine export.
func TestShardRerunResumes(t *testing.T) {
	base := shardOpts()
	whole, _ := export(t, t.TempDir(), base)
	path := filepath.Join(t.TempDir(), "s.png")
	o := base
	o.Shard, o.Shards = 1, 2
	stop := o
	stop.stopAfter = 2
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, stop); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("stopped shard: %v", err)
	}
	sp := ShardPath(path, 1, 2)
	if _, err := os.Stat(CheckpointPath(sp)); err != nil {
		t.Fatalf("no checkpoint after the stop: %v", err)
	}
	sum, err := Export(context.Background(), &cpu.Renderer{}, path, o)
	if err != nil {
		t.Fatal(err)
	}
	// Resume is implied for a shard: asked for on a first run, it starts the shard.
	r := o
	r.Shard, r.Resume = 0, true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, r); err != nil {
		t.Fatalf("a first run of shard 0 with Resume: %v", err)
	}
	first, _ := shardStrips(1, 2, sum.Strips)
	if sum.Resumed != first+2 {
		t.Errorf("resumed at strip %d, want %d", sum.Resumed, first+2)
	}
	before := mustRead(t, sp)
	again, err := Export(context.Background(), &cpu.Renderer{}, path, o)
	if err != nil || !again.AlreadyComplete {
		t.Fatalf("a complete shard run again: %+v, %v", again, err)
	}
	if !bytes.Equal(mustRead(t, sp), before) {
		t.Error("running a complete shard again changed it")
	}
	// Other parameters: refused, the shard kept; with Overwrite, done again.
	other := o
	other.Location.Iterations = 500
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, other); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "iterations was 400, now 500") {
		t.Errorf("a shard of other parameters: %v", err)
	}
	exportShards(t, path, base, 1) // a shard of another count beside: ignored with Shards given
	zero := o
	zero.Shard = 0
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, zero); err != nil {
		t.Fatal(err)
	}
	if _, err := Assemble(context.Background(), path, AssembleOptions{}); !errors.Is(err, ErrShards) || !strings.Contains(err.Error(), "different counts") {
		t.Errorf("two shard counts beside the PNG: %v", err)
	}
	if _, err := Assemble(context.Background(), path, AssembleOptions{Shards: 2}); err != nil {
		t.Fatal(err)
	}
	sameFile(t, path, whole)
	// A .part left by a killed assembly (no checkpoint) does not stop the next one; an
	// interrupted export's, which its checkpoint can resume, does, without Overwrite.
	os.Rename(path, PartPath(path))
	if _, err := Assemble(context.Background(), path, AssembleOptions{Shards: 2}); err != nil {
		t.Fatalf("with a .part left by an assembly: %v", err)
	}
	sameFile(t, path, whole)
	os.Rename(path, PartPath(path))
	os.WriteFile(CheckpointPath(path), []byte("{}"), 0o644)
	if _, err := Assemble(context.Background(), path, AssembleOptions{Shards: 2}); !errors.Is(err, ErrUnfinished) {
		t.Errorf("with an interrupted export's .part and checkpoint: %v", err)
	}
	os.Remove(CheckpointPath(path))
	os.Remove(PartPath(path))
	if _, err := Assemble(context.Background(), path, AssembleOptions{Shards: 2}); err != nil {
		t.Fatal(err)
	}
	// Interrupted: nothing is left at the PNG's place.
	os.Remove(path)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Assemble(ctx, path, AssembleOptions{Shards: 2}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("a cancelled assembly: %v", err)
	}
	for _, p := range []string{path, PartPath(path)} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is there after a cancelled assembly", p)
		}
	}
	if _, err := Assemble(context.Background(), path, AssembleOptions{Shards: 2}); err != nil {
		t.Fatal(err)
	}
	// The PNG exists: refused without Overwrite, replaced with it.
	if _, err := Assemble(context.Background(), path, AssembleOptions{Shards: 2}); !errors.Is(err, ErrExists) {
		t.Errorf("assembling over an existing PNG: %v", err)
	}
	if _, err := Assemble(context.Background(), path, AssembleOptions{Shards: 2, Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	sameFile(t, path, whole)
}

// Assembly names every missing, unfinished, damaged or mismatched shard in one line, and
// leaves no PNG and no .part.
func TestAssembleNamesBadShards(t *testing.T) {
	base := shardOpts()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.png")
	exportShards(t, path, base, 5)
	noPNG := func(t *testing.T) {
		t.Helper()
		for _, p := range []string{path, PartPath(path)} {
			if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s is there after a refused assembly", p)
			}
		}
	}
	check := func(t *testing.T, want ...string) {
		t.Helper()
		_, err := Assemble(context.Background(), path, AssembleOptions{})
		if !errors.Is(err, ErrShards) {
			t.Fatalf("got %v, want ErrShards", err)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("error of more than one line: %q", msg)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q does not say %q", msg, w)
			}
		}
		noPNG(t)
	}
	save := func(i int) []byte { return mustRead(t, ShardPath(path, i, 5)) }
	restore := func(i int, b []byte) {
		if err := os.WriteFile(ShardPath(path, i, 5), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s1, s3 := save(1), save(3)

	t.Run("missing", func(t *testing.T) {
		os.Remove(ShardPath(path, 3, 5))
		defer restore(3, s3)
		check(t, "shard 3 of 5 missing ("+ShardPath(path, 3, 5)+")")
	})
	t.Run("unfinished", func(t *testing.T) {
		os.Rename(ShardPath(path, 3, 5), PartPath(ShardPath(path, 3, 5)))
		defer func() { os.Remove(PartPath(ShardPath(path, 3, 5))); restore(3, s3) }()
		check(t, "shard 3 of 5 unfinished")
	})
	t.Run("flipped bytes", func(t *testing.T) {
		// A byte in the image data of shard 1 and one in shard 3's: both named.
		for _, x := range []struct {
			i   int
			b   []byte
			off int
		}{{1, s1, len(s1) / 2}, {3, s3, len(s3) - 30}} {
			d := bytes.Clone(x.b)
			d[x.off] ^= 0x10
			restore(x.i, d)
		}
		defer func() { restore(1, s1); restore(3, s3) }()
		check(t, "shard 1 of 5 damaged", "shard 3 of 5 damaged", "bad CRC")
	})
	t.Run("cut short", func(t *testing.T) {
		restore(1, s1[:len(s1)-100])
		defer restore(1, s1)
		check(t, "shard 1 of 5 damaged", "truncated")
	})
	t.Run("trailer rewritten", func(t *testing.T) {
		// A consistent-looking file whose trailer lies about its checksum state.
		d := bytes.Clone(s1)
		i := bytes.LastIndex(d, []byte(`"adler32":`))
		d[i+11] ^= 1
		restore(1, d)
		defer restore(1, s1)
		check(t, "shard 1 of 5 damaged", "bad CRC")
	})
	t.Run("not a shard", func(t *testing.T) {
		restore(1, []byte("hello"))
		defer restore(1, s1)
		check(t, "shard 1 of 5 damaged", "not a Mandelscope shard file")
	})
	t.Run("other parameters", func(t *testing.T) {
		o := base
		o.Location.Iterations = 401
		o.Shard, o.Shards, o.Overwrite = 2, 5, true
		s2 := save(2)
		if _, err := Export(context.Background(), &cpu.Renderer{}, path, o); err != nil {
			t.Fatal(err)
		}
		defer restore(2, s2)
		check(t, "shard 2 of 5 damaged", "iterations was 400, now 401")
	})
	t.Run("another renderer", func(t *testing.T) {
		o := base
		o.Shard, o.Shards, o.Overwrite = 4, 5, true
		s4 := save(4)
		if _, err := Export(context.Background(), &otherRenderer{}, path, o); err != nil {
			t.Fatal(err)
		}
		defer restore(4, s4)
		check(t, "shard 4 of 5 damaged", "drawn by OpenGL: test GPU")
	})
	t.Run("none", func(t *testing.T) {
		_, err := Assemble(context.Background(), filepath.Join(dir, "other.png"), AssembleOptions{})
		if !errors.Is(err, ErrShards) || !strings.Contains(err.Error(), "no shards of") {
			t.Errorf("no shards: %v", err)
		}
	})
	if _, err := Assemble(context.Background(), path, AssembleOptions{}); err != nil {
		t.Fatalf("the shards restored: %v", err)
	}
}

// Two runs of one shard at once: the second is refused (ErrBusy) while the first holds the
// shard's lock, changes nothing, and the first finishes intact; or, with WaitLock, the
// second waits and then keeps the shard the first completed.
func TestShardTwoRunsAtOnce(t *testing.T) {
	defer func(d time.Duration) { lockPoll = d }(lockPoll)
	lockPoll = 10 * time.Millisecond
	path := filepath.Join(t.TempDir(), "s.png")
	o := shardOpts()
	o.Shard, o.Shards = 0, 2
	b := newBlocking()
	done := make(chan error)
	go func() {
		_, err := Export(context.Background(), b, path, o)
		done <- err
	}()
	<-b.entered
	sp := ShardPath(path, 0, 2)
	part := mustRead(t, PartPath(sp))
	for _, force := range []bool{false, true} {
		o2 := o
		o2.Overwrite = force
		_, err := Export(context.Background(), &cpu.Renderer{}, path, o2)
		if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), sp) {
			t.Errorf("second run (force %v): %v, want ErrBusy naming %s", force, err, sp)
		}
	}
	if !bytes.Equal(mustRead(t, PartPath(sp)), part) {
		t.Error("the refused run changed the running one's .part")
	}
	// A run that waits (WaitLock) goes on once the first is done, and keeps its shard.
	waiting := make(chan string, 1)
	waited := make(chan Summary, 1)
	go func() {
		o2 := o
		o2.WaitLock = true
		o2.Waiting = func(lp string) { waiting <- lp }
		sum, err := Export(context.Background(), &cpu.Renderer{}, path, o2)
		if err != nil {
			t.Error(err)
		}
		waited <- sum
	}()
	if lp := <-waiting; lp != LockPath(sp) {
		t.Errorf("waiting for %s, want %s", lp, LockPath(sp))
	}
	close(b.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if sum := <-waited; !sum.AlreadyComplete {
		t.Errorf("the waiting run: %+v, want the shard kept as complete", sum)
	}
	if _, err := readShard(sp, nil); err != nil {
		t.Fatalf("the first run's shard: %v", err)
	}
}

func TestParseShard(t *testing.T) {
	for _, s := range []string{"0/1", "3/8", " 7 / 8 "} {
		if _, _, err := ParseShard(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"", "3", "8/8", "-1/4", "a/b", "1/0", "0/100001", "1/2/3"} {
		if _, _, err := ParseShard(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// A deep view's shards read one reference orbit from a file (computed once) instead of each
// computing it: the assembled PNG is the one-machine export's, every shard records the
// file's digest, and an orbit that is not the view's is refused in one line.
func TestShardsWithReferenceFile(t *testing.T) {
	loc := testLoc()
	loc.Re = fractal.MustDecimal("-0.743643887037158704752191506114774")
	loc.Im = fractal.MustDecimal("0.131825904205311970493132056385139")
	loc.Zoom = fractal.MustDecimal("1e20")
	loc.Iterations = 3000
	opt := Options{Location: loc, Width: 96, Height: 64, StripBytes: 4 * 96 * 8, Version: "t"}
	whole, _ := export(t, t.TempDir(), opt)
	dir := t.TempDir()
	ref, err := ComputeReference(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	rp := filepath.Join(dir, "s.png.ref")
	digest, err := WriteReferenceFile(rp, ref, false)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := WriteReferenceFile(rp, ref, false); err != nil || d != digest {
		t.Errorf("writing the same orbit again: %v", err)
	}
	read, d2, err := ReadReferenceFile(rp)
	if err != nil || d2 != digest {
		t.Fatalf("read back: %v (digest %s, written %s)", err, d2, digest)
	}
	path := filepath.Join(dir, "s.png")
	for i := range 3 {
		o := opt
		o.Shard, o.Shards = i, 3
		if i != 1 { // shard 1 computes its own: the same orbit, the same digest
			o.Reference, o.ReferenceDigest = read, digest
		}
		if _, err := Export(context.Background(), &cpu.Renderer{}, path, o); err != nil {
			t.Fatal(err)
		}
	}
	as, err := Assemble(context.Background(), path, AssembleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if as.Reference != digest {
		t.Errorf("the shards record the orbit %s, the file's is %s", as.Reference, digest)
	}
	sameFile(t, path, whole)

	// Another view's orbit (more iterations) is refused before anything is written.
	o := opt
	o.Location.Iterations = 3001
	o.Shard, o.Shards, o.Reference, o.ReferenceDigest = 0, 3, read, digest
	_, err = Export(context.Background(), &cpu.Renderer{}, filepath.Join(dir, "t.png"), o)
	if err == nil || !strings.Contains(err.Error(), "reference orbit is for 3000 iterations, the view has 3001") || strings.Contains(err.Error(), "\n") {
		t.Errorf("another view's orbit: %v", err)
	}
	if _, err := os.Lstat(PartPath(ShardPath(filepath.Join(dir, "t.png"), 0, 3))); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused shard left a .part")
	}
	// A damaged file is named.
	data := mustRead(t, rp)
	data[len(data)/2] ^= 1
	os.WriteFile(rp, data, 0o644)
	if _, _, err := ReadReferenceFile(rp); err == nil || !strings.Contains(err.Error(), rp) || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged reference file: %v", err)
	}
	if _, err := WriteReferenceFile(rp, ref, false); !errors.Is(err, ErrExists) {
		t.Errorf("writing over a different file: %v", err)
	}
	if _, err := ComputeReference(context.Background(), shardOpts(), nil); err == nil || !strings.Contains(err.Error(), "not deep enough") {
		t.Errorf("a shallow view's reference: %v", err)
	}
}
