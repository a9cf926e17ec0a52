//go:build !(goexperiment.simd && amd64)

package fractal

// hardwareVectorWidth is 0: this build has no vector loop (it needs GOEXPERIMENT=simd on
// amd64).
func hardwareVectorWidth() int { return 0 }

func perturbBatchVector(int, *Reference, *BLA, []float64, []float64, int, <-chan struct{}, []int, []float64) bool {
	panic("fractal: no vector loop in this build")
}

func perturbBatchDEVector(int, *Reference, *BLA, []float64, []float64, int, float64, <-chan struct{}, []Result) bool {
	panic("fractal: no vector loop in this build")
}

func perturbBatchExpVector(int, *Reference, *BLAExp, []Exp, []Exp, int, <-chan struct{}, []int, []float64) bool {
	panic("fractal: no vector loop in this build")
}

func perturbBatchDEExpVector(int, *Reference, *BLAExp, []Exp, []Exp, int, Exp, <-chan struct{}, []Result) bool {
	panic("fractal: no vector loop in this build")
}

func perturbChannelsVector(int, Location, *Reference, *BLA, []float64, []float64, float64, bool, <-chan struct{}, []OrbitResult) (bool, int) {
	panic("fractal: no vector loop in this build")
}

func perturbChannelsExpVector(int, Location, *Reference, *BLAExp, []Exp, []Exp, Exp, bool, <-chan struct{}, []OrbitResult) (bool, int) {
	panic("fractal: no vector loop in this build")
}

func perturbBatchFormulaVector(int, *Reference, *FormulaBLA, []float64, []float64, int, <-chan struct{}, []int, []float64) bool {
	panic("fractal: no vector loop in this build")
}
