// Package peer is the routebench peer runner protocol for Go routers
// (docs/peer-protocol.md): it reads the routes and requests files, parses
// routebench's pattern syntax into segments for a runner to translate,
// and speaks the protocol on stdin/stdout.  A runner supplies three
// functions: Add (one route, or an error saying why it is refused), Build
// and Lookup.
package peer

import (
	"bufio"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Segment kinds.
const (
	Static   = iota // exact bytes
	Param           // :name or {name}: one whole segment of 1+ bytes
	CatchAll        // *name or {*name}: 1+ bytes to the end, last segment
	Glob            // *.png, img-??, [a-c]*, **
	Template        // {id}.json, {from}-{to}: params inside a segment
)

// Seg is one path segment of a pattern.
type Seg struct {
	Kind int
	Text string // the segment as written
	Name string // Param, CatchAll: the name
}

// Route is one line of the routes file; its id is its index.
type Route struct {
	Method  string // "GET", ..., or "*" for any method
	Pattern string
	Segs    []Seg
}

// Request is one line of the requests file.
type Request struct {
	Method, Path string
	Expected     string // the line's EXPECTED column (a route id, -1 or -2)
}

// Methods are the methods routebench knows, for "*" routes.
var Methods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		alpha := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !alpha && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func parseSeg(s string) Seg {
	switch {
	case len(s) > 1 && s[0] == ':' && isName(s[1:]):
		return Seg{Param, s, s[1:]}
	case len(s) > 2 && s[0] == '{' && s[len(s)-1] == '}' && isName(s[1:len(s)-1]):
		return Seg{Param, s, s[1 : len(s)-1]}
	case len(s) > 1 && s[0] == '*' && isName(s[1:]):
		return Seg{CatchAll, s, s[1:]}
	case len(s) > 3 && strings.HasPrefix(s, "{*") && s[len(s)-1] == '}' && isName(s[2:len(s)-1]):
		return Seg{CatchAll, s, s[2 : len(s)-1]}
	case strings.ContainsAny(s, "*?["):
		return Seg{Glob, s, ""}
	case strings.Contains(s, "{"):
		return Seg{Template, s, ""}
	}
	return Seg{Static, s, ""}
}

// rank is a segment's rank in routebench's priority key (docs/design.md).
func rank(s Seg) int {
	switch s.Kind {
	case Param, Template:
		return 1
	case Glob:
		if s.Text == "**" {
			return 3
		}
		return 2
	case CatchAll:
		return 4
	}
	return 0
}

// literalBytes is the priority key's third part, near enough for the
// tables a first-match router is given (globs' sets count as their text).
func literalBytes(r Route) int {
	n := 0
	for _, s := range r.Segs {
		switch s.Kind {
		case Static:
			n += len(s.Text)
		case Template:
			for _, p := range Pieces(s.Text) {
				if !p.Param {
					n += len(p.Text)
				}
			}
		case Glob:
			n += len(s.Text) - strings.Count(s.Text, "*") - strings.Count(s.Text, "?")
		}
	}
	return n
}

// PriorityOrder is the ids of routes in routebench's priority order (the
// winner first): segment ranks left to right (a proper prefix first), a
// specific method before "*", more literal bytes, the lower id.  A router
// that takes the first route that matches, in the order it was given them,
// gives routebench's answers when it is given them in this order.
func PriorityOrder(routes []Route) []int {
	ids := make([]int, len(routes))
	for i := range ids {
		ids[i] = i
	}
	less := func(a, b Route) int {
		for i := 0; i < len(a.Segs) && i < len(b.Segs); i++ {
			if ra, rb := rank(a.Segs[i]), rank(b.Segs[i]); ra != rb {
				return ra - rb
			}
		}
		if len(a.Segs) != len(b.Segs) {
			return len(a.Segs) - len(b.Segs)
		}
		if (a.Method == "*") != (b.Method == "*") {
			if a.Method == "*" {
				return 1
			}
			return -1
		}
		return literalBytes(b) - literalBytes(a)
	}
	sort.SliceStable(ids, func(i, j int) bool {
		return less(routes[ids[i]], routes[ids[j]]) < 0
	})
	return ids
}

// Piece is one part of a template segment: literal text, or a param.
type Piece struct {
	Param bool
	Text  string // the literal bytes, or the param's name
}

// Pieces splits a template segment ("img-{id}.png", "{from}-{to}") into its
// literal and param pieces, in order; nil when it is not a well-formed
// template (routebench's parser has already checked it: two params always
// have literal bytes between them).
func Pieces(s string) []Piece {
	var out []Piece
	for s != "" {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			return append(out, Piece{false, s})
		}
		if open > 0 {
			out = append(out, Piece{false, s[:open]})
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 || !isName(s[open+1:open+end]) {
			return nil
		}
		out = append(out, Piece{true, s[open+1 : open+end]})
		s = s[open+end+1:]
	}
	return out
}

func lines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimRight(l, "\r")
		if l == "" || l[0] == '#' {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

func loadRoutes(path string) ([]Route, error) {
	ls, err := lines(path)
	if err != nil {
		return nil, err
	}
	routes := make([]Route, 0, len(ls))
	for _, l := range ls {
		sp := strings.IndexByte(l, ' ')
		if sp < 0 || len(l) < sp+2 || l[sp+1] != '/' {
			return nil, fmt.Errorf("malformed route line %q", l)
		}
		r := Route{Method: l[:sp], Pattern: l[sp+1:]}
		for _, s := range strings.Split(r.Pattern[1:], "/") {
			r.Segs = append(r.Segs, parseSeg(s))
		}
		routes = append(routes, r)
	}
	return routes, nil
}

func loadRequests(path string) ([]Request, error) {
	ls, err := lines(path)
	if err != nil {
		return nil, err
	}
	reqs := make([]Request, 0, len(ls))
	for _, l := range ls {
		a := strings.IndexByte(l, ' ')
		b := strings.LastIndexByte(l, ' ')
		if a < 0 || b <= a {
			return nil, fmt.Errorf("malformed request line %q", l)
		}
		reqs = append(reqs, Request{l[:a], l[a+1 : b], l[b+1:]})
	}
	return reqs, nil
}

// Offset is the byte offset of sub within s, when sub is a substring of s
// sharing its memory (the routers return their params as such slices);
// -1 when it is not.
func Offset(s, sub string) int {
	if len(sub) == 0 {
		return -1
	}
	ps := (*reflect.StringHeader)(unsafe.Pointer(&s)).Data
	pu := (*reflect.StringHeader)(unsafe.Pointer(&sub)).Data
	if pu < ps || pu+uintptr(len(sub)) > ps+uintptr(len(s)) {
		return -1
	}
	return int(pu - ps)
}

// Runner is what a router supplies.
type Runner struct {
	Name string
	// Add takes route id; an error refuses it (the message says why).
	Add func(id int, r Route) error
	// Build is called once after every Add.
	Build func()
	// Lookup answers: a route id, -1 (404) or -2 (405), and the capture
	// spans as offset, length pairs appended to spans.  spans is nil in
	// the timed trials: then nothing is to be reported.  A nil result
	// says the spans of this answer cannot be reported (a capture the
	// router returns empty or copied, which Offset cannot place): its
	// route id is compared alone.
	Lookup func(method, path string, spans []int) (int, []int)
	Spans  bool // Lookup reports spans
	// Bare, when set, is what the timed loop calls instead of Lookup: the
	// router's own lookup call alone, its answer folded into a number that
	// needs no translation to a route id (1 + the params' count for a hit,
	// 0 for a miss, say), as a plain benchmark loop of the router does.
	// The answers are checked from Lookup beforehand; the runner says
	// "fold" with one replay's sum of Bare, and every trial must sum to R
	// times it.  Without Bare the loop folds Lookup's id + 2.
	Bare func(method, path string) uint64
	// Requests, when set, is given the requests before they are answered
	// (the nop runner answers from their EXPECTED column).
	Requests func(reqs []Request)
	// Checked, when set, is called once the answers are checked, before
	// Bare's first call, and in Plain before the plain loop: it switches
	// off what only the answers needed (gin's 405 search, say), so that
	// the timed loop and the plain loop ask the router the same way.
	Checked func()
	// Ordered: Add is called in PriorityOrder rather than file order
	// (for routers that take the first route that matches).
	Ordered bool
}

// Args are the runner's own arguments: those before the two files.
func Args() []string {
	if len(os.Args) < 3 {
		return nil
	}
	return os.Args[1 : len(os.Args)-2]
}

// routebench_peer_loop is the timed loop: reps replays of every request.
// Its name is the protocol's: under `--metric instructions` routebench
// counts the instructions executed inside it, and only those
// (docs/peer-protocol.md).
//
//go:noinline
func routebench_peer_loop(bare func(method, path string) uint64, reqs []Request, reps int) uint64 {
	var sum uint64
	for i := 0; i < reps; i++ {
		for j := range reqs {
			sum += bare(reqs[j].Method, reqs[j].Path)
		}
	}
	return sum
}

func fail(out *bufio.Writer, err error) {
	fmt.Fprintf(out, "error %v\n", err)
	out.Flush()
	os.Exit(1)
}

// Plain is the plain loop of a router, in its own benchmarks' style
// (scripts/peers_fair.sh): the routes are added as Main adds them, then
// loop (the router's lookup called directly on every request, folded into
// a checksum) is timed, reps sized for about 200 ms, after one untimed
// run; it prints "plain NAME NS ..." with the ns per lookup of each of
// five runs and the checksum of one replay.  No protocol: this is the
// reference the runner's figure is held to.
func Plain(r Runner, loop func(reqs []Request, reps int) uint64) {
	routes, err := loadRoutes(os.Args[len(os.Args)-2])
	if err == nil {
		var reqs []Request
		reqs, err = loadRequests(os.Args[len(os.Args)-1])
		if err == nil {
			order := make([]int, len(routes))
			for i := range order {
				order[i] = i
			}
			if r.Ordered {
				order = PriorityOrder(routes)
			}
			for _, id := range order {
				r.Add(id, routes[id]) // a refused route is left out, as in Main
			}
			r.Build()
			if r.Checked != nil {
				r.Checked()
			}
			plainRuns(r.Name, reqs, loop)
			return
		}
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", r.Name, err)
	os.Exit(1)
}

func plainRuns(name string, reqs []Request, loop func(reqs []Request, reps int) uint64) {
	one := loop(reqs, 1)
	reps := 1
	for {
		start := time.Now()
		loop(reqs, reps)
		if time.Since(start) >= 50*time.Millisecond {
			reps = int(float64(reps) * 200e6 / float64(time.Since(start).Nanoseconds()))
			break
		}
		reps *= 2
	}
	if reps < 1 {
		reps = 1
	}
	fmt.Printf("plain %s", name)
	for k := 0; k < 5; k++ {
		start := time.Now()
		sum := loop(reqs, reps)
		ns := time.Since(start).Nanoseconds()
		if sum != uint64(reps)*one {
			fmt.Fprintf(os.Stderr, "%s: checksum %d, not %d\n", name, sum, uint64(reps)*one)
			os.Exit(1)
		}
		fmt.Printf(" %.1f", float64(ns)/float64(reps*len(reqs)))
	}
	fmt.Printf(" checksum %d\n", one)
}

// oneLine is text on one line: newlines as spaces, at most 300 bytes.
func oneLine(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > 300 {
		text = text[:300]
	}
	return text
}

// answerAll is the "a" lines of every request, from Lookup.  A lookup
// that panics ends the pass: the rest answer -1, unasked, and culprit and
// why say which route to refuse and why: the request's EXPECTED route (the
// one it should reach), else the route taken nearest its path.
func answerAll(r Runner, reqs []Request, routes []Route, refusals []string) (answers []byte, culprit int, why string) {
	var b strings.Builder
	spans := make([]int, 0, 64)
	culprit = -1
	for _, q := range reqs {
		if why != "" {
			b.WriteString("a -1\n")
			continue
		}
		id, sp, p := safeLookup(r, q, spans[:0])
		if p != nil {
			want, err := strconv.Atoi(q.Expected)
			if err != nil || want < 0 || want >= len(routes) || refusals[want] != "" {
				want = nearest(routes, refusals, q.Path)
			}
			culprit = want
			why = oneLine(fmt.Sprintf("%s panics looking up %s %s (%v): its tree cannot hold this table",
				r.Name, q.Method, q.Path, p))
			b.WriteString("a -1\n")
			continue
		}
		b.WriteString("a ")
		b.WriteString(strconv.Itoa(id))
		if r.Spans && sp != nil {
			b.WriteString(" =")
			for i := 0; i+1 < len(sp); i += 2 {
				fmt.Fprintf(&b, " %d+%d", sp[i], sp[i+1])
			}
		}
		b.WriteByte('\n')
	}
	return []byte(b.String()), culprit, why
}

// safeLookup is r.Lookup, with a panic inside the router returned as p.
func safeLookup(r Runner, q Request, spans []int) (id int, sp []int, p interface{}) {
	defer func() {
		if x := recover(); x != nil {
			p = x
		}
	}()
	id, sp = r.Lookup(q.Method, q.Path, spans)
	return id, sp, nil
}

// nearest is the route taken (not refused) whose leading segments match
// most of path's (a static segment by its text, any other by any text),
// the lower id on a tie; -1 when every route was refused.
func nearest(routes []Route, refusals []string, path string) int {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	best, bestN := -1, -1
	for id, rt := range routes {
		if refusals[id] != "" {
			continue
		}
		n := 0
		for n < len(rt.Segs) && n < len(segs) &&
			(rt.Segs[n].Kind != Static || rt.Segs[n].Text == segs[n]) {
			n++
		}
		if n > bestN {
			best, bestN = id, n
		}
	}
	return best
}

// waitQuit reads commands until "quit" or the end of input: a runner that
// refused the table is not asked for trials, and answers any with an error.
func waitQuit(out *bufio.Writer) {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "quit" {
			return
		}
		out.WriteString("error this runner refused the table\n")
		out.Flush()
	}
}

// Main runs the protocol with the last two arguments as the routes and
// requests files (the runner's own arguments, Args, come before them).
func Main(r Runner) {
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	if len(os.Args) < 3 {
		fmt.Fprintf(os.Stderr, "usage: %s [ARG...] ROUTES_FILE REQUESTS_FILE\n", os.Args[0])
		os.Exit(2)
	}
	routes, err := loadRoutes(os.Args[len(os.Args)-2])
	if err != nil {
		fail(out, err)
	}
	reqs, err := loadRequests(os.Args[len(os.Args)-1])
	if err != nil {
		fail(out, err)
	}
	fmt.Fprintf(out, "routebench-peer 1 %s\n", r.Name)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	t0 := time.Now()
	taken := 0
	order := make([]int, len(routes))
	for i := range order {
		order[i] = i
	}
	if r.Ordered {
		order = PriorityOrder(routes)
	}
	refusals := make([]string, len(routes))
	for _, id := range order {
		if err := r.Add(id, routes[id]); err != nil {
			refusals[id] = strings.ReplaceAll(err.Error(), "\n", " ")
			continue
		}
		taken++
	}
	r.Build()
	build := time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if r.Requests != nil {
		r.Requests(reqs)
	}
	// The answers are found before the refusals are said: a router whose
	// lookup panics on this table (gin's tree on some static and param
	// mixes) refuses it in one line, never a stack trace.
	answers, culprit, why := answerAll(r, reqs, routes, refusals)
	if culprit >= 0 {
		refusals[culprit] = why
	}
	for id, why := range refusals {
		if why != "" {
			fmt.Fprintf(out, "refuse %d %s\n", id, why)
		}
	}
	fmt.Fprintf(out, "loaded %d %d %d\n", taken, build.Nanoseconds(), int64(after.HeapAlloc)-int64(before.HeapAlloc))
	out.Write(answers)
	if why != "" { // refused: the rest of the protocol without another lookup
		out.WriteString("ready\n")
		out.Flush()
		waitQuit(out)
		return
	}
	if r.Checked != nil {
		r.Checked()
	}
	bare := r.Bare
	if bare == nil {
		bare = func(method, path string) uint64 {
			id, _ := r.Lookup(method, path, nil)
			return uint64(int64(id) + 2)
		}
	} else {
		var fold uint64
		for _, q := range reqs {
			fold += bare(q.Method, q.Path)
		}
		fmt.Fprintf(out, "fold %d\n", fold)
	}
	out.WriteString("ready\n")
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		cmd := in.Text()
		if cmd == "quit" {
			return
		}
		var reps int
		if _, err := fmt.Sscanf(cmd, "run %d", &reps); err != nil {
			fmt.Fprintf(out, "error unknown command %q\n", cmd)
			out.Flush()
			continue
		}
		start := time.Now()
		sum := routebench_peer_loop(bare, reqs, reps)
		ns := time.Since(start).Nanoseconds()
		fmt.Fprintf(out, "ok %d %d\n", ns, sum)
		out.Flush()
	}
}
