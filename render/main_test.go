package render

import (
	"flag"
	"os"
	"runtime"
	"sync"
	"testing"

	"mandelscope/internal/imagetest"
)

func init() {
	// GLFW's window calls must run on the main thread: keep TestMain's goroutine on it.
	runtime.LockOSThread()
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := 1
	Main(func() {
		code = m.Run()
		closeShared()
	})
	os.Exit(code)
}

// shared holds one GL per forced precision, made on first use and closed after the tests.
var (
	sharedMu sync.Mutex
	shared   = map[string]*GL{}
	sharedEr = map[string]error{}
)

// testGL returns a GL with opts (cached by precision, perturbation renderer, max tile and pass iterations). It skips the test when no
// GL context can be made, unless MANDELSCOPE_REQUIRE_GL=1, where it fails.
func testGL(t testing.TB, opts Options) *GL {
	t.Helper()
	key := opts.Precision + "/" + opts.Perturb + "/" + itoa(opts.MaxTile) + "/" + itoa(opts.PassIterations)
	sharedMu.Lock()
	g, ok := shared[key]
	err := sharedEr[key]
	if !ok && err == nil {
		g, err = NewGL(opts)
		shared[key], sharedEr[key] = g, err
	}
	sharedMu.Unlock()
	if err != nil {
		imagetest.NoGL(t, "no GL context: "+err.Error())
	}
	return g
}

func closeShared() {
	for _, g := range shared {
		if g != nil {
			g.Close()
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
