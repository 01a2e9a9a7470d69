package session

// Check is one check a script stated with check(): what was measured, the
// bound it was held to and whether it passed. Every front end reads the
// run's checks from its session (the exit status, --junit, --json-lines,
// records and the monitor's metrics).
type Check struct {
	Name string `json:"name"`
	// Pass reports whether the measured value kept to the bound.
	Pass bool `json:"pass"`
	// Value is the measured number, nil when the check measured none (a
	// condition, a failed test, a figure that reads None).
	Value *float64 `json:"value"`
	// Measured is the measured value as text ("27291.86", "True", or the
	// error of the failed test the check was about).
	Measured string `json:"measured"`
	// Bound is the condition the value was held to (">= 25000",
	// "<= 200us", "True").
	Bound string `json:"bound"`
	// Unit is the unit of Value and of the bound's number, if known
	// ("us" when the bound was a duration).
	Unit string `json:"unit,omitempty"`
	// Error, if set, is why nothing could be measured: the error of the
	// failed test the check was about.
	Error string `json:"error,omitempty"`
	// Where is the script position of the check() call ("gate.star:12:6").
	Where string `json:"where,omitempty"`
	// Test and Brand name the test the check was about, if it named one
	// (result=), for the monitor's labels.
	Test  string `json:"test,omitempty"`
	Brand string `json:"brand,omitempty"`
	Host  string `json:"host,omitempty"`
}

// checkList is the checks of a session, in the order they were stated.
type checkList struct {
	list []Check
}

// AddCheck records a check the script stated and gives it to OnCheck.
func (s *Session) AddCheck(c Check) {
	s.stateMu.Lock()
	s.checks.list = append(s.checks.list, c)
	on := s.OnCheck
	s.stateMu.Unlock()
	if on != nil {
		on(c)
	}
}

// Checks returns the checks stated so far, in order.
func (s *Session) Checks() []Check {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	return append([]Check(nil), s.checks.list...)
}

// ChecksFailed counts the checks stated so far that failed.
func (s *Session) ChecksFailed() int {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	n := 0
	for _, c := range s.checks.list {
		if !c.Pass {
			n++
		}
	}
	return n
}
