// Package nearest finds the name a misspelt one most likely meant, for
// the "did you mean" of an unknown option or flag.
package nearest

import "strings"

// Name is the one of names a misspelt name most likely meant, for a
// "did you mean": within an edit distance of a third of its length (at
// least 1), or one it is the beginning of (3 letters or more); "" when
// none is that close.
func Name(name string, names []string) string {
	best, bestD := "", max(1, len(name)/3)+1
	for _, n := range names {
		d := editDistance(name, n)
		if len(name) >= 3 && strings.HasPrefix(n, name) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
