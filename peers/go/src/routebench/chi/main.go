// chi is the routebench peer runner of Go's github.com/go-chi/chi v5
// (docs/peer-protocol.md).  Two ways to ask chi, both reported:
//
//	chi ROUTES REQUESTS            chi's own tree lookup, Mux.Match with a
//	                               reused routing context (which fills the
//	                               URL params), timed alone, folding 1 +
//	                               the params' count (0 for no match).  In
//	                               the check pass the route is the pattern
//	                               chi matched (RoutePatterns), mapped back
//	                               to its id per method (a Go map lookup);
//	                               a path that matches under no method is
//	                               405 when Match succeeds under another
//	                               method (Match does not tell 405 from 404)
//	chi servehttp ROUTES REQUESTS  Mux.ServeHTTP as in a server (a reused
//	                               request, a discarding ResponseWriter),
//	                               chi telling its route to the handler it
//	                               calls (which folds 1 + the params'
//	                               count), 404 and 405 its NotFound and
//	                               MethodNotAllowed handlers (0)
//
// With "plain" before the files (chi [servehttp] plain ROUTES REQUESTS)
// there is no protocol: chi's plain loop of that call, in the style of
// chi's own benchmarks (Match with a reused context, or ServeHTTP with a
// reused request, in a for loop), timed and printed by peer.Plain
// (scripts/peers_fair.sh).
//
// Translation: a param becomes {pN} (N its segment index), a catch-all
// chi's "*", a template segment ("img-{id}.png", "{from}-{to}") chi's own
// form ("img-{pN_0}.png", "{pN_0}-{pN_1}"): chi supports params inside a
// segment, each ending at the first occurrence of the byte after its '}'
// (routebench's split is leftmost-shortest on the whole literal piece, the
// last piece anchored at the segment's end, so a path like "a.b.json"
// under "{id}.json" is answered differently: counted as a disagreement).
// Refused: globs, static text with '{' or '*', and whatever chi itself
// rejects (a panic: its text is the reason).  A "*" route is registered
// with Handle (every method).  Spans: chi's URL
// params are slices of the path.
package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/go-chi/chi"

	"routebench/peer"
)

var (
	current   int
	got       uint64 // the fold of the last ServeHTTP: 1 + params for a route
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
			if strings.ContainsAny(s.Text, "{}*") {
				return "", errors.New("static text with '{', '}' or '*' (chi reads a pattern)")
			}
			b.WriteString(s.Text)
		case peer.Param:
			fmt.Fprintf(&b, "{p%d}", i)
		case peer.CatchAll:
			b.WriteString("*")
		case peer.Glob:
			return "", errors.New("globs are not supported by chi")
		default: // a template: chi ends a param at the first byte after its '}'
			ps := peer.Pieces(s.Text)
			if ps == nil {
				return "", errors.New("a malformed template")
			}
			k := 0
			for _, p := range ps {
				if !p.Param {
					if strings.ContainsAny(p.Text, "{}*") {
						return "", errors.New("template text with '{', '}' or '*' (chi reads a pattern)")
					}
					b.WriteString(p.Text)
					continue
				}
				fmt.Fprintf(&b, "{p%d_%d}", i, k)
				k++
			}
		}
	}
	return b.String(), nil
}

// ids maps the pattern chi matched to its route ids, per method ("*" for
// a route of every method).
type ids map[string]int

func main() {
	args := peer.Args()
	serve := len(args) > 0 && args[0] == "servehttp"
	if serve {
		args = args[1:]
	}
	plain := len(args) == 1 && args[0] == "plain"
	if len(args) > 0 && !plain {
		fmt.Fprintf(os.Stderr, "usage: chi [servehttp] [plain] ROUTES_FILE REQUESTS_FILE\n")
		os.Exit(2)
	}
	byPattern := map[string]ids{}
	mux := chi.NewRouter()
	mux.NotFound(func(http.ResponseWriter, *http.Request) { current = -1 })
	mux.MethodNotAllowed(func(http.ResponseWriter, *http.Request) { current = -2 })
	add := func(id int, r peer.Route) (err error) {
		pat, err := translate(r)
		if err != nil {
			return err
		}
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("chi refuses %s: %v", pat, p)
			}
		}()
		h := func(w http.ResponseWriter, req *http.Request) {
			current = id
			ps := chi.RouteContext(req.Context()).URLParams
			got = 1 + uint64(len(ps.Values))
			if !wantSpans {
				return
			}
			for _, v := range ps.Values {
				off := peer.Offset(path, v)
				if off < 0 { // an empty value (chi takes "" for a param): no place to report
					spansOut = nil
					return
				}
				spansOut = append(spansOut, off, len(v))
			}
		}
		if byPattern[pat] == nil {
			byPattern[pat] = ids{}
		}
		byPattern[pat][r.Method] = id
		if r.Method == "*" {
			mux.Handle(pat, http.HandlerFunc(h))
		} else {
			mux.Method(r.Method, pat, http.HandlerFunc(h))
		}
		return nil
	}
	w := &discard{http.Header{}}
	req := &http.Request{URL: &url.URL{}, Header: http.Header{}}
	req = req.WithContext(req.Context())
	lookup := func(method, p string, spans []int) (int, []int) {
		req.Method = method
		req.URL.Path = p
		path = p
		wantSpans = spans != nil
		spansOut = spans
		current = -1
		mux.ServeHTTP(w, req)
		return current, spansOut
	}
	rctx := chi.NewRouteContext()
	match := func(method, p string, spans []int) (int, []int) {
		rctx.Reset()
		if !mux.Match(rctx, method, p) {
			for _, m := range peer.Methods {
				if m != method {
					rctx.Reset()
					if mux.Match(rctx, m, p) {
						return -2, spans
					}
				}
			}
			return -1, spans
		}
		pats := rctx.RoutePatterns
		byMethod := byPattern[pats[len(pats)-1]]
		id, ok := byMethod[method]
		if !ok {
			id = byMethod["*"]
		}
		if spans != nil {
			for _, v := range rctx.URLParams.Values {
				off := peer.Offset(p, v)
				if off < 0 { // an empty value: no place to report
					return id, nil
				}
				spans = append(spans, off, len(v))
			}
		}
		return id, spans
	}
	// timed (chi): Match alone with the reused context, as a plain loop
	// calls it; the pattern-to-id map, the 405 matches and the spans are
	// the check pass's
	bare := func(method, p string) uint64 {
		rctx.Reset()
		if !mux.Match(rctx, method, p) {
			return 0
		}
		return 1 + uint64(len(rctx.URLParams.Values))
	}
	// timed (chi-servehttp): ServeHTTP, folding what the handler folded;
	// the spans are the check pass's
	serveBare := func(method, p string) uint64 {
		req.Method = method
		req.URL.Path = p
		got = 0
		mux.ServeHTTP(w, req)
		return got
	}
	checked := func() { wantSpans = false }
	if plain && serve { // ServeHTTP with a reused request in a for loop
		peer.Plain(peer.Runner{Name: "chi-servehttp", Add: add, Build: func() {}, Checked: checked},
			func(reqs []peer.Request, reps int) uint64 {
				var sum uint64
				for i := 0; i < reps; i++ {
					for j := range reqs {
						req.Method = reqs[j].Method
						req.URL.Path = reqs[j].Path
						got = 0
						mux.ServeHTTP(w, req)
						sum += got
					}
				}
				return sum
			})
		return
	}
	if plain { // Match with a reused context in a for loop
		peer.Plain(peer.Runner{Name: "chi", Add: add, Build: func() {}},
			func(reqs []peer.Request, reps int) uint64 {
				var sum uint64
				rc := chi.NewRouteContext()
				for i := 0; i < reps; i++ {
					for j := range reqs {
						rc.Reset()
						if mux.Match(rc, reqs[j].Method, reqs[j].Path) {
							sum += 1 + uint64(len(rc.URLParams.Values))
						}
					}
				}
				return sum
			})
		return
	}
	if serve {
		peer.Main(peer.Runner{Name: "chi-servehttp", Add: add, Build: func() {}, Lookup: lookup, Spans: true,
			Bare: serveBare, Checked: checked})
	} else {
		peer.Main(peer.Runner{Name: "chi", Add: add, Build: func() {}, Lookup: match, Spans: true,
			Bare: bare})
	}
}
