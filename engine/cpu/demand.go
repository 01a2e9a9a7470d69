package cpu

import (
	"fmt"
	"math"
	"time"
)

// bytesPerKB is netperf's K for service demand: 1024 bytes.
const bytesPerKB = 1024

// DemandPerTransaction is netperf's service demand for request/response
// tests: microseconds of CPU per transaction, given the utilisation in
// percent of the whole machine, the CPU count it was measured over, and the
// transaction rate. It equals netperf's util × 10000 / rate × ncpu. A rate
// that is not positive, a utilisation outside [0, 100] or a CPU count below 1
// is an error, never an infinity.
func DemandPerTransaction(utilPct float64, ncpu int, perSecond float64) (float64, error) {
	if err := checkDemand(utilPct, ncpu, perSecond); err != nil {
		return 0, fmt.Errorf("cpu: service demand per transaction: %w", err)
	}
	return finite("cpu: service demand per transaction", utilPct/100*float64(ncpu)/perSecond*1e6)
}

// DemandPerKB is netperf's service demand for stream tests: microseconds of
// CPU per KB moved (K = 1024 bytes), given the utilisation in percent of the
// whole machine, the CPU count and the rate in bytes per second (netperf uses
// the bytes this side sent plus received). Bad inputs are errors as for
// [DemandPerTransaction].
func DemandPerKB(utilPct float64, ncpu int, bytesPerSecond float64) (float64, error) {
	if err := checkDemand(utilPct, ncpu, bytesPerSecond); err != nil {
		return 0, fmt.Errorf("cpu: service demand per KB: %w", err)
	}
	return finite("cpu: service demand per KB", utilPct/100*float64(ncpu)/(bytesPerSecond/bytesPerKB)*1e6)
}

// CPUTimePerTransaction is service demand from measured CPU time (of the
// process or of the worker threads): microseconds of CPU per transaction.
// It stays right when other work shares the machine.
func CPUTimePerTransaction(cpu time.Duration, transactions int64) (float64, error) {
	if err := checkWork(cpu, transactions, "transactions"); err != nil {
		return 0, fmt.Errorf("cpu: CPU time per transaction: %w", err)
	}
	return float64(cpu) / float64(time.Microsecond) / float64(transactions), nil
}

// CPUTimePerKB is service demand from measured CPU time: microseconds of CPU
// per KB (K = 1024 bytes) moved.
func CPUTimePerKB(cpu time.Duration, bytes int64) (float64, error) {
	if err := checkWork(cpu, bytes, "bytes"); err != nil {
		return 0, fmt.Errorf("cpu: CPU time per KB: %w", err)
	}
	return float64(cpu) / float64(time.Microsecond) / (float64(bytes) / bytesPerKB), nil
}

// checkDemand validates the inputs of the utilisation form.
func checkDemand(utilPct float64, ncpu int, rate float64) error {
	switch {
	case math.IsNaN(utilPct) || utilPct < 0 || utilPct > 100:
		return fmt.Errorf("utilisation %v%% is outside [0, 100]", utilPct)
	case ncpu < 1:
		return fmt.Errorf("CPU count %d is not positive", ncpu)
	case math.IsNaN(rate) || math.IsInf(rate, 0) || rate <= 0:
		return fmt.Errorf("rate %v per second is not a positive number (no work was done?)", rate)
	}
	return nil
}

// checkWork validates the inputs of the CPU-time form.
func checkWork(cpu time.Duration, units int64, what string) error {
	switch {
	case cpu < 0:
		return fmt.Errorf("CPU time %v is negative", cpu)
	case units <= 0:
		return fmt.Errorf("%d %s: no work to divide by", units, what)
	}
	return nil
}

// finite returns v, or an error naming op if v overflowed to an infinity
// (a rate so small that the demand does not fit in a float64).
func finite(op string, v float64) (float64, error) {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%s: result overflows (the rate is too small)", op)
	}
	return v, nil
}
