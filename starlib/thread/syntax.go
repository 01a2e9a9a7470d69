package thread

import (
	"sort"
	"sync"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"netscript/session"
)

// KeepSyntax remembers the syntax tree of a file or REPL statement th's
// session runs (before or after it is resolved), so that parallel() can
// tell which globals the functions defined in it use and freeze only
// those. For a function whose syntax it does not know, parallel() freezes
// every global of its module. starlib.ExecFile keeps what it runs by
// itself.
func KeepSyntax(th *starlark.Thread, f *syntax.File) {
	env, err := Session(th)
	if err != nil || len(f.Stmts) == 0 {
		return
	}
	e := syntaxesOf(env)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.files == nil {
		e.files = map[syntax.Position]*syntax.File{}
		e.names = map[syntax.Position][]string{}
	}
	e.files[fileKey(syntax.Start(f.Stmts[0]))] = f
}

// syntaxesKey is the key of a session's syntaxes.
type syntaxesKey struct{}

// syntaxesOf returns the syntax trees the session s ran.
func syntaxesOf(s *session.Session) *syntaxes {
	return s.State(syntaxesKey{}, func() any { return &syntaxes{} }).(*syntaxes)
}

// syntaxes are the syntax trees a session ran, by file, and what was
// learnt from them, by function.
type syntaxes struct {
	mu    sync.Mutex
	files map[syntax.Position]*syntax.File // by fileKey of any position in it
	names map[syntax.Position][]string     // by a function's position: the names namesOf found
}

// fileKey identifies the parse a position comes from: every position of
// one parse shares its file name's address, which no other parse has, so
// two REPL statements (both "<stdin>", both from line 1) differ.
func fileKey(p syntax.Position) syntax.Position {
	p.Line, p.Col = 0, 0
	return p
}

// NamesOf lists the global and predeclared names the body of fn uses,
// with the bodies of the functions nested in it; ok is false when fn's
// syntax is not known (a file th's session ran by other means than
// starlib.ExecFile or KeepSyntax).
func NamesOf(th *starlark.Thread, fn *starlark.Function) (names []string, ok bool) {
	env, err := Session(th)
	if err != nil {
		return nil, false
	}
	pos := fn.Position()
	e := syntaxesOf(env)
	e.mu.Lock()
	defer e.mu.Unlock()
	if names, ok := e.names[pos]; ok {
		return names, true
	}
	f := e.files[fileKey(pos)]
	if f == nil {
		return nil, false
	}
	var def *resolve.Function
	syntax.Walk(f, func(n syntax.Node) bool {
		if def != nil {
			return false
		}
		var rf any
		switch n := n.(type) {
		case *syntax.DefStmt:
			rf = n.Function
		case *syntax.LambdaExpr:
			rf = n.Function
		}
		if d, ok := rf.(*resolve.Function); ok && d.Pos == pos {
			def = d
		}
		return true
	})
	if def == nil {
		return nil, false
	}
	set := map[string]bool{}
	for _, stmt := range def.Body {
		syntax.Walk(stmt, func(n syntax.Node) bool {
			if id, ok := n.(*syntax.Ident); ok {
				if b, ok := id.Binding.(*resolve.Binding); ok && (b.Scope == resolve.Global || b.Scope == resolve.Predeclared) {
					set[id.Name] = true
				}
			}
			return true
		})
	}
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	e.names[pos] = names
	return names, true
}
