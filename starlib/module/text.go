package module

import "strings"

// MailWidth is the width help() texts and table() keep to, so their text
// pasted into a mail is not wrapped.
const MailWidth = 80

// Wrap breaks text into lines of at most width characters at spaces, as
// help() wraps its texts.
func Wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// AndList lists names as "a", "a and b" or "a, b and c", as help texts
// name the workloads of the registry that do a thing.
func AndList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
