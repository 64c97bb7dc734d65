// echo is the routebench peer runner of Go's github.com/labstack/echo v4
// (docs/peer-protocol.md):  echo [plain] ROUTES_FILE REQUESTS_FILE
//
// Timed through echo's own tree lookup, Router.Find with a reused Context
// reset before each call (as Find's doc comment asks; Find fills the
// params), then the handler Find chose is called, as echo's ServeHTTP
// does: echo's Find hands 404 and 405 back as handlers (NotFoundHandler,
// MethodNotAllowedHandler: echo tells them apart itself) and a route's
// handler says its id.  The timed loop folds 1 + the params' count when
// the handler is a route's (it returns no error), 0 otherwise; the spans
// are the check pass's.  With "plain" there is no protocol: echo's plain
// loop, in the style of echo's own router benchmarks (Find on every
// request in a for loop, here with the reset and the handler call that
// tell a hit), timed and printed by peer.Plain (scripts/peers_fair.sh).
//
// Translation: a param becomes :pN (N its segment index), a catch-all
// echo's "*", a template that is a literal prefix and one param ("us_{id}")
// "us_:pN".  Refused: globs, other templates (text after a param: echo's
// params end only at '/'), static text with ':' or '*', and whatever echo
// itself rejects (a panic: its text is the reason).  A "*" route is
// registered for every method.  Spans: echo's params are slices of the
// path (an empty value, which echo's "*" takes, cannot be placed: that
// answer reports no spans).
package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/labstack/echo"

	"routebench/peer"
)

var current int

func translate(r peer.Route) (string, error) {
	var b strings.Builder
	for i, s := range r.Segs {
		b.WriteByte('/')
		switch s.Kind {
		case peer.Static:
			if strings.ContainsAny(s.Text, ":*") {
				return "", errors.New("static text with ':' or '*' (echo reads a wildcard)")
			}
			b.WriteString(s.Text)
		case peer.Param:
			fmt.Fprintf(&b, ":p%d", i)
		case peer.CatchAll:
			b.WriteString("*")
		case peer.Glob:
			return "", errors.New("globs are not supported by echo")
		default:
			ps := peer.Pieces(s.Text)
			if len(ps) != 2 || ps[0].Param || !ps[1].Param {
				return "", errors.New("a template with text after a param or two params " +
					"(echo's params end at '/' only)")
			}
			if strings.ContainsAny(ps[0].Text, ":*") {
				return "", errors.New("template text with ':' or '*' (echo reads a wildcard)")
			}
			fmt.Fprintf(&b, "%s:p%d", ps[0].Text, i)
		}
	}
	return b.String(), nil
}

func main() {
	e := echo.New()
	add := func(id int, r peer.Route) (err error) {
		pat, err := translate(r)
		if err != nil {
			return err
		}
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("echo refuses %s: %v", pat, p)
			}
		}()
		h := func(echo.Context) error {
			current = id
			return nil
		}
		if r.Method == "*" {
			for _, m := range peer.Methods {
				e.Add(m, pat, h)
			}
		} else {
			e.Add(r.Method, pat, h)
		}
		return nil
	}
	var router *echo.Router
	var c echo.Context
	build := func() {
		router = e.Router()
		c = e.NewContext(nil, nil)
	}
	lookup := func(method, p string, spans []int) (int, []int) {
		c.Reset(nil, nil)
		router.Find(method, p, c)
		switch c.Handler()(c) {
		case nil:
		case echo.ErrMethodNotAllowed:
			return -2, spans
		default:
			return -1, spans
		}
		if spans != nil {
			for _, v := range c.ParamValues() {
				off := peer.Offset(p, v)
				if off < 0 {
					return current, nil
				}
				spans = append(spans, off, len(v))
			}
		}
		return current, spans
	}
	// timed: Find and the handler it chose, the answer folded
	bare := func(method, p string) uint64 {
		c.Reset(nil, nil)
		router.Find(method, p, c)
		if c.Handler()(c) != nil {
			return 0
		}
		return 1 + uint64(len(c.ParamValues()))
	}
	runner := peer.Runner{Name: "echo", Add: add, Build: build, Lookup: lookup, Spans: true, Bare: bare}
	if len(peer.Args()) == 1 && peer.Args()[0] == "plain" {
		// echo's own router benchmarks: Find in a for loop
		peer.Plain(runner, func(reqs []peer.Request, reps int) uint64 {
			var sum uint64
			for i := 0; i < reps; i++ {
				for j := range reqs {
					c.Reset(nil, nil)
					router.Find(reqs[j].Method, reqs[j].Path, c)
					if c.Handler()(c) == nil {
						sum += 1 + uint64(len(c.ParamValues()))
					}
				}
			}
			return sum
		})
		return
	}
	peer.Main(runner)
}
