// httprouter is the routebench peer runner of Go's
// github.com/julienschmidt/httprouter (docs/peer-protocol.md).
//
// Translation: a param becomes :pN (N its segment index: httprouter wants
// one name per position, routebench erases names), a catch-all *rest, a
// template that is a literal prefix and one param ("us_{id}") httprouter's
// "us_:pN" (a param may start inside a segment but ends only at '/').
// Refused: globs, other templates ("{id}.json", "{from}-{to}": text after
// a param), static text with ':' or '*' (httprouter reads them as wildcards), and whatever httprouter itself
// rejects (it panics on a static/param conflict at one position, or a
// handle registered twice: the panic's text is the reason).  A "*" route
// is registered for every method.  405: as httprouter's ServeHTTP decides
// it, by looking the path up under the other methods.  Spans: httprouter's
// params are slices of the path; a catch-all's value starts at the '/'
// before it, which is not part of routebench's span.
package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

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
				return "", errors.New("static text with ':' or '*' (httprouter reads a wildcard)")
			}
			b.WriteString(s.Text)
		case peer.Param:
			fmt.Fprintf(&b, ":p%d", i)
		case peer.CatchAll:
			b.WriteString("*rest")
		case peer.Glob:
			return "", errors.New("globs are not supported by httprouter")
		default: // a template: only "prefix{id}", httprouter's params end at '/'
			ps := peer.Pieces(s.Text)
			if len(ps) != 2 || ps[0].Param || !ps[1].Param {
				return "", errors.New("a template with text after a param or two params " +
					"(httprouter's params end at '/' only)")
			}
			if strings.ContainsAny(ps[0].Text, ":*") {
				return "", errors.New("template text with ':' or '*' (httprouter reads a wildcard)")
			}
			fmt.Fprintf(&b, "%s:p%d", ps[0].Text, i)
		}
	}
	return b.String(), nil
}

func main() {
	router := httprouter.New()
	add := func(id int, r peer.Route) (err error) {
		pat, err := translate(r)
		if err != nil {
			return err
		}
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("httprouter refuses %s: %v", pat, p)
			}
		}()
		h := func(http.ResponseWriter, *http.Request, httprouter.Params) { current = id }
		if r.Method == "*" {
			for _, m := range peer.Methods {
				router.Handle(m, pat, h)
			}
		} else {
			router.Handle(r.Method, pat, h)
		}
		return nil
	}
	lookup := func(method, path string, spans []int) (int, []int) {
		h, ps, _ := router.Lookup(method, path)
		if h == nil {
			for _, m := range peer.Methods {
				if m == method {
					continue
				}
				if h2, _, _ := router.Lookup(m, path); h2 != nil {
					return -2, spans
				}
			}
			return -1, spans
		}
		h(nil, nil, ps)
		if spans != nil {
			for _, p := range ps {
				off, n := peer.Offset(path, p.Value), len(p.Value)
				if off < 0 { // an empty value: no place in the path to report
					return current, nil
				}
				if p.Key == "rest" && n > 0 { // the value starts at the '/' before it
					off, n = off+1, n-1
				}
				spans = append(spans, off, n)
			}
		}
		return current, spans
	}
	// timed: Lookup alone, as httprouter's own benchmarks call it; the
	// handler, the 405 lookups and the spans are the check pass's
	bare := func(method, path string) uint64 {
		h, ps, _ := router.Lookup(method, path)
		if h == nil {
			return 0
		}
		return 1 + uint64(len(ps))
	}
	runner := peer.Runner{Name: "httprouter", Add: add, Build: func() {}, Lookup: lookup, Spans: true,
		Bare: bare}
	if len(peer.Args()) == 1 && peer.Args()[0] == "plain" {
		// httprouter's own benchmarks: Lookup in a for loop
		peer.Plain(runner, func(reqs []peer.Request, reps int) uint64 {
			var sum uint64
			for i := 0; i < reps; i++ {
				for j := range reqs {
					h, ps, _ := router.Lookup(reqs[j].Method, reqs[j].Path)
					if h != nil {
						sum += 1 + uint64(len(ps))
					}
				}
			}
			return sum
		})
		return
	}
	peer.Main(runner)
}
