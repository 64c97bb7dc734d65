// gin is the routebench peer runner of Go's github.com/gin-gonic/gin
// (docs/peer-protocol.md):  gin [plain] ROUTES_FILE REQUESTS_FILE
//
// Routed through Engine.ServeHTTP as in a server (a reused request, a
// discarding ResponseWriter): gin's tree lookup is not exported, so its
// own lookup call is the one a server makes, with its pooled Context.  The
// route's handler says its id and folds 1 + its params' count.  In the
// check pass, 405 is gin's own (HandleMethodNotAllowed: the path looked up
// in the other methods' trees), 404 its NoRoute; the timed loop runs with
// gin's default, HandleMethodNotAllowed off, and folds what the handler
// folded (0 for a miss).  Trailing-slash and fixed-path redirects are off
// throughout (routebench's paths are exact).  With "plain" there is no
// protocol: gin's plain loop, in the style of gin's own benchmarks and
// go-http-routing-benchmark (ServeHTTP with a reused request in a for
// loop), timed and printed by peer.Plain (scripts/peers_fair.sh).
//
// Translation (gin's tree descends from httprouter's): a param becomes :pN
// (N its segment index), a catch-all *rest, a template that is a literal
// prefix and one param ("us_{id}") "us_:pN".  Refused: globs, other
// templates (text after a param: gin's params end only at '/'), static
// text with ':' or '*', and whatever gin itself rejects (a panic: its text
// is the reason); a table on whose requests gin's lookup panics (its tree,
// on the Discord OpenAPI table) is refused by peer.Main, in one line.  A
// "*" route is registered for every method.  Spans:
// gin's params are slices of the path; a catch-all's value starts at the
// '/' before it, which is not part of routebench's span.
package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"routebench/peer"
)

var (
	current   int
	got       uint64 // the fold of the last request: 1 + params for a route
	wantSpans bool
	spansOut  []int
	path      string
)

type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

func translate(r peer.Route) (string, error) {
	var b strings.Builder
	for i, s := range r.Segs {
		b.WriteByte('/')
		switch s.Kind {
		case peer.Static:
			if strings.ContainsAny(s.Text, ":*") {
				return "", errors.New("static text with ':' or '*' (gin reads a wildcard)")
			}
			b.WriteString(s.Text)
		case peer.Param:
			fmt.Fprintf(&b, ":p%d", i)
		case peer.CatchAll:
			b.WriteString("*rest")
		case peer.Glob:
			return "", errors.New("globs are not supported by gin")
		default:
			ps := peer.Pieces(s.Text)
			if len(ps) != 2 || ps[0].Param || !ps[1].Param {
				return "", errors.New("a template with text after a param or two params " +
					"(gin's params end at '/' only)")
			}
			if strings.ContainsAny(ps[0].Text, ":*") {
				return "", errors.New("template text with ':' or '*' (gin reads a wildcard)")
			}
			fmt.Fprintf(&b, "%s:p%d", ps[0].Text, i)
		}
	}
	return b.String(), nil
}

func main() {
	gin.SetMode(gin.ReleaseMode)
	engine := gin.New()
	engine.HandleMethodNotAllowed = true
	engine.RedirectTrailingSlash = false
	engine.RedirectFixedPath = false
	engine.NoRoute(func(*gin.Context) { current = -1 })
	engine.NoMethod(func(*gin.Context) { current = -2 })
	add := func(id int, r peer.Route) (err error) {
		pat, err := translate(r)
		if err != nil {
			return err
		}
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("gin refuses %s: %v", pat, p)
			}
		}()
		h := func(c *gin.Context) {
			current = id
			got = 1 + uint64(len(c.Params))
			if !wantSpans {
				return
			}
			for _, p := range c.Params {
				off, n := peer.Offset(path, p.Value), len(p.Value)
				if off < 0 { // an empty value: no place in the path to report
					spansOut = nil
					return
				}
				if p.Key == "rest" && n > 0 { // the value starts at the '/' before it
					off, n = off+1, n-1
				}
				spansOut = append(spansOut, off, n)
			}
		}
		if r.Method == "*" {
			for _, m := range peer.Methods {
				engine.Handle(m, pat, h)
			}
		} else {
			engine.Handle(r.Method, pat, h)
		}
		return nil
	}
	w := &discard{http.Header{}}
	req := &http.Request{URL: &url.URL{}, Header: http.Header{}}
	lookup := func(method, p string, spans []int) (int, []int) {
		req.Method = method
		req.URL.Path = p
		path = p
		wantSpans = spans != nil
		spansOut = spans
		current = -1
		engine.ServeHTTP(w, req)
		return current, spansOut
	}
	// timed: ServeHTTP alone, as gin's own benchmarks call it; the 405
	// search and the spans are the check pass's
	serve := func(method, p string) uint64 {
		req.Method = method
		req.URL.Path = p
		got = 0
		engine.ServeHTTP(w, req)
		return got
	}
	checked := func() {
		engine.HandleMethodNotAllowed = false
		wantSpans = false
	}
	runner := peer.Runner{Name: "gin", Add: add, Build: func() {}, Lookup: lookup, Spans: true,
		Bare: serve, Checked: checked}
	if len(peer.Args()) == 1 && peer.Args()[0] == "plain" {
		// gin's own benchmarks: ServeHTTP with a reused request in a for loop
		peer.Plain(runner, func(reqs []peer.Request, reps int) uint64 {
			var sum uint64
			for i := 0; i < reps; i++ {
				for j := range reqs {
					req.Method = reqs[j].Method
					req.URL.Path = reqs[j].Path
					got = 0
					engine.ServeHTTP(w, req)
					sum += got
				}
			}
			return sum
		})
		return
	}
	peer.Main(runner)
}
