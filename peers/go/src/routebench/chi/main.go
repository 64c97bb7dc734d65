// chi is the routebench peer runner of Go's github.com/go-chi/chi v5
// (docs/peer-protocol.md), routed through the Mux's ServeHTTP as in a
// server (a reused request, a discarding ResponseWriter), since chi tells
// its route only to the handler it calls.
//
// Translation: a param becomes {pN} (N its segment index), a catch-all
// chi's "*", a template segment ("img-{id}.png", "{from}-{to}") chi's own
// form ("img-{pN_0}.png", "{pN_0}-{pN_1}"): chi supports params inside a
// segment, each ending at the first occurrence of the byte after its '}'
// (routebench's split is leftmost-shortest on the whole literal piece, the
// last piece anchored at the segment's end, so a path like "a.b.json"
// under "{id}.json" is answered differently: counted as a disagreement).
// Refused: globs, static text with '{' or '*', and whatever chi itself
// rejects (a panic: its text is the reason).  A "*" route is registered with Handle (every method).  404 and
// 405 are chi's NotFound and MethodNotAllowed handlers.  Spans: chi's URL
// params are slices of the path.
package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi"

	"routebench/peer"
)

var (
	current   int
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

func main() {
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
			if !wantSpans {
				return
			}
			ps := chi.RouteContext(req.Context()).URLParams
			for _, v := range ps.Values {
				off := peer.Offset(path, v)
				if off < 0 { // an empty value (chi takes "" for a param): no place to report
					spansOut = nil
					return
				}
				spansOut = append(spansOut, off, len(v))
			}
		}
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
	peer.Main(peer.Runner{Name: "chi", Add: add, Build: func() {}, Lookup: lookup, Spans: true})
}
