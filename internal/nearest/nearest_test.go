package nearest

import "testing"

// TestNearest: a misspelt name is matched within a third of its length,
// or as the beginning of a name; a short unrelated one is not matched.
func TestNearest(t *testing.T) {
	names := []string{"duration", "nodelay", "burst", "tos", "listen", "max-duration", "request"}
	for _, c := range []struct{ name, want string }{
		{"durtion", "duration"},
		{"nodely", "nodelay"},
		{"bust", "burst"},
		{"lisen", "listen"},
		{"max-dur", "max-duration"},
		{"reqest", "request"},
		{"foo", ""}, // two edits from tos, but foo is three letters
		{"x", ""},
		{"completely", ""},
	} {
		if got := Name(c.name, names); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
