package repl

import (
	"os"

	"golang.org/x/sys/unix"
)

// assumedColumns is the width taken for a terminal that reports none.
const assumedColumns = 80

// assumeColumns makes a terminal that reports zero columns (a serial
// console, some container and editor terminals) report 80, as `stty cols
// 80` would: liner reads the width from the terminal and, at zero, falls
// back to a bare line reader without editing or completion. It returns
// what puts the terminal's report back at the end of the session; a
// terminal that reports its width is left alone.
func assumeColumns(f *os.File) (restore func()) {
	fd := int(f.Fd())
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil || ws.Col != 0 {
		return func() {}
	}
	was := *ws
	ws.Col = assumedColumns
	if ws.Row == 0 {
		ws.Row = 24
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws); err != nil {
		return func() {}
	}
	return func() {
		// Only if nobody set a real size meanwhile (a resized window).
		if now, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ); err == nil && now.Col == assumedColumns {
			unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &was)
		}
	}
}
