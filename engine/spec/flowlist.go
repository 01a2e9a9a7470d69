package spec

import "fmt"

// FlowListError is a per-flow list (of addresses, ports) whose length is
// not the test's number of flows: the cause of an OptionError naming the
// list's option.
type FlowListError struct {
	Len   int    // the list's length
	What  string // what it lists: "addresses", "ports"
	Flows int    // the test's flows
}

func (e *FlowListError) Error() string {
	return fmt.Sprintf("a list of %d %s for %s: give one per flow", e.Len, e.What, e.ForFlows())
}

// ForFlows says how many flows the test has: "3 flows", "1 flow".
func (e *FlowListError) ForFlows() string {
	if e.Flows == 1 {
		return "1 flow"
	}
	return fmt.Sprintf("%d flows", e.Flows)
}
