package client

import (
	"netscript/engine/result"
	"netscript/engine/workload"
)

// samplesOf turns a loop's interim readings (or several flows' readings
// summed by combineSamples) into the result's samples: the throughput in
// units over each interval, and the TCP figures where the readings have
// them. A test's top-level samples come from the flows' combined readings;
// each flow's own come from its readings alone, at its own instants, so
// the flows' work over sample k (throughput × interval), their
// retransmits and their cwnd add up to the top level's sample k.
func samplesOf(ss []workload.Sample, units string) []result.Sample {
	out := make([]result.Sample, 0, len(ss))
	for i := range ss {
		t, d, v := sampleRate(ss, i, units)
		smp := result.Sample{T: t, Throughput: v, Interval: d}
		sampleTCP(&smp, ss, i)
		out = append(out, smp)
	}
	return out
}
