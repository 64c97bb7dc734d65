// gorillamux is the routebench peer runner of Go's github.com/gorilla/mux
// (docs/peer-protocol.md):  gorilla-mux [plain] ROUTES_FILE REQUESTS_FILE
//
// Timed through Router.Match with a fresh RouteMatch per lookup (what its
// ServeHTTP does), alone, folding 1 + the matched variables' count (0 for
// no match); in the check pass the matched handler is called and says its
// route id.  405 is mux's own (ErrMethodMismatch: a route matched the path
// under another method), 404 ErrNotFound.  With "plain" there is no
// protocol: mux's plain loop (Match with a reused request in a for loop,
// the style of go-http-routing-benchmark, which calls the ServeHTTP around
// it), timed and printed by peer.Plain (scripts/peers_fair.sh).
//
// gorilla/mux tries its routes one by one in the order they were added
// and takes the first that matches (each a regular expression), so the
// runner adds them in routebench's priority order (peer.PriorityOrder),
// the order a mux user would have to choose by hand.
//
// Translation: a param becomes {pN} (mux's default [^/]+: one whole
// segment, 1+ bytes), a catch-all {pN:.+}; a template's params become
// {pN_K:[^/]+?} (lazy: routebench's leftmost-shortest split; the literal
// pieces around them are mux's literal text); a glob segment becomes one
// variable whose expression is the glob's ('*' [^/]*, '?' [^/], a set
// [...] or [^...], "**" (?:/[^/]*)*? taking the '/' before it, so that
// zero segments match).  Refused: static text with '{' or '}' (mux reads a
// variable), and whatever mux itself rejects (its error is the reason).
// Spans: mux's variables are slices of the path (a glob's is the whole
// segment, a "**"'s starts at the '/' before the segments it took, which is
// left out); an empty value (a "**" that took no segment, a glob that took
// nothing) cannot be placed, so that answer reports no spans.
package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/gorilla/mux"

	"routebench/peer"
)

var current int

// globExpr is a glob segment as a regular expression of one segment.
func globExpr(g string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			end := strings.IndexByte(g[i+1:], ']')
			if end < 0 {
				return "", errors.New("a malformed set in a glob")
			}
			set := g[i+1 : i+1+end]
			neg := strings.HasPrefix(set, "!")
			if neg {
				set = set[1:]
			}
			if strings.ContainsAny(set, `\^[]{}`) {
				return "", errors.New("a glob set with '\\', '^', '[', ']', '{' or '}'")
			}
			if neg {
				b.WriteString("[^/" + set + "]")
			} else {
				b.WriteString("[" + set + "]")
			}
			i += end + 1
		case '{', '}':
			return "", errors.New("a glob with '{' or '}' (mux reads a variable)")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String(), nil
}

// translate returns mux's template and the names of routebench's
// captures in it, in order.
func translate(r peer.Route) (string, []string, error) {
	var b strings.Builder
	var names []string
	for i, s := range r.Segs {
		switch s.Kind {
		case peer.Static:
			if strings.ContainsAny(s.Text, "{}") {
				return "", nil, errors.New("static text with '{' or '}' (mux reads a variable)")
			}
			b.WriteString("/" + s.Text)
		case peer.Param:
			n := fmt.Sprintf("p%d", i)
			fmt.Fprintf(&b, "/{%s}", n)
			names = append(names, n)
		case peer.CatchAll:
			n := fmt.Sprintf("p%d", i)
			fmt.Fprintf(&b, "/{%s:.+}", n)
			names = append(names, n)
		case peer.Glob:
			if s.Text == "**" {
				n := fmt.Sprintf("d%d", i)
				fmt.Fprintf(&b, "{%s:(?:/[^/]*)*?}", n)
				names = append(names, n)
				continue
			}
			e, err := globExpr(s.Text)
			if err != nil {
				return "", nil, err
			}
			n := fmt.Sprintf("g%d", i)
			fmt.Fprintf(&b, "/{%s:%s}", n, e)
			names = append(names, n)
		default:
			ps := peer.Pieces(s.Text)
			if ps == nil {
				return "", nil, errors.New("a malformed template")
			}
			b.WriteByte('/')
			k := 0
			for _, p := range ps {
				if !p.Param {
					if strings.ContainsAny(p.Text, "{}") {
						return "", nil, errors.New("template text with '{' or '}' (mux reads a variable)")
					}
					b.WriteString(p.Text)
					continue
				}
				n := fmt.Sprintf("p%d_%d", i, k)
				fmt.Fprintf(&b, "{%s:[^/]+?}", n)
				names = append(names, n)
				k++
			}
		}
	}
	return b.String(), names, nil
}

func main() {
	router := mux.NewRouter()
	captures := map[int][]string{}
	add := func(id int, r peer.Route) (err error) {
		pat, names, err := translate(r)
		if err != nil {
			return err
		}
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("mux refuses %s: %v", pat, p)
			}
		}()
		route := router.NewRoute().Path(pat).HandlerFunc(func(http.ResponseWriter, *http.Request) { current = id })
		if r.Method != "*" {
			route.Methods(r.Method)
		}
		if err := route.GetError(); err != nil {
			return fmt.Errorf("mux refuses %s: %v", pat, err)
		}
		captures[id] = names
		return nil
	}
	req := &http.Request{URL: &url.URL{}, Header: http.Header{}}
	lookup := func(method, p string, spans []int) (int, []int) {
		req.Method = method
		req.URL.Path = p
		var match mux.RouteMatch
		if !router.Match(req, &match) {
			if match.MatchErr == mux.ErrMethodMismatch {
				return -2, spans
			}
			return -1, spans
		}
		match.Handler.ServeHTTP(nil, req)
		if spans != nil {
			for _, n := range captures[current] {
				v := match.Vars[n]
				off := peer.Offset(p, v)
				if off < 0 { // an empty value (a glob, a "**" that took none): no place to report
					return current, nil
				}
				if n[0] == 'd' { // a "**" value starts at the '/' before its first segment
					off, v = off+1, v[1:]
				}
				spans = append(spans, off, len(v))
			}
		}
		return current, spans
	}
	// timed: Match alone; the handler call and the spans are the check pass's
	bare := func(method, p string) uint64 {
		req.Method = method
		req.URL.Path = p
		var match mux.RouteMatch
		if !router.Match(req, &match) {
			return 0
		}
		return 1 + uint64(len(match.Vars))
	}
	runner := peer.Runner{Name: "gorilla-mux", Add: add, Build: func() {}, Lookup: lookup, Spans: true,
		Ordered: true, Bare: bare}
	if len(peer.Args()) == 1 && peer.Args()[0] == "plain" {
		// Match with a reused request in a for loop
		peer.Plain(runner, func(reqs []peer.Request, reps int) uint64 {
			var sum uint64
			for i := 0; i < reps; i++ {
				for j := range reqs {
					req.Method = reqs[j].Method
					req.URL.Path = reqs[j].Path
					var match mux.RouteMatch
					if router.Match(req, &match) {
						sum += 1 + uint64(len(match.Vars))
					}
				}
			}
			return sum
		})
		return
	}
	peer.Main(runner)
}
