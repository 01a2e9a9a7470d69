package stats

// Procedure is a confidence rule (a validated ConfidenceSpec) ready to run
// any number of times: it keeps the t quantiles it has needed, so running
// it often (a simulation of its coverage) does not compute them again.
// A Procedure is not safe for concurrent use.
type Procedure struct {
	spec ConfidenceSpec
	t    []float64 // t[df], 0 until computed (a critical value is never 0)
}

// NewProcedure validates spec and prepares its rule.
func NewProcedure(spec ConfidenceSpec) (*Procedure, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return &Procedure{spec: spec, t: make([]float64, spec.Max)}, nil
}

// tq is the critical value at the spec's level for df degrees of freedom
// (1 ≤ df < Max).
func (p *Procedure) tq(df int) float64 {
	if p.t[df] == 0 {
		p.t[df] = tQuantile(p.spec.Level, float64(df))
	}
	return p.t[df]
}

// Sample runs the rule once with one metric whose iteration i returns
// sample(): the procedure on plain numbers, as a simulation of its coverage
// draws them.
func (p *Procedure) Sample(sample func() float64) (*Confidence, error) {
	buf := make([]float64, 1)
	return p.Run(func(int) ([]float64, error) {
		buf[0] = sample()
		return buf, nil
	})
}
